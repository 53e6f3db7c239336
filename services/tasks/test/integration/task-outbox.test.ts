import { createLogger, createMemoryBus, pgAdapter, silentLogger, TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import type { TaskRequest } from '../../src/domain/types';
import { PrismaClient } from '../../src/generated/prisma/client';
import { Outbox } from '../../src/repo/outbox';
import { TaskRepo } from '../../src/repo/task-repo';
import { taskRepoHarness, type TaskRepoHarness } from '../support/task-repo';

const request: TaskRequest = { messages: [{ role: 'user', content: 'hello' }], call_params: {}, stream: false };

// The task_events table holds what is not published yet: a published event's row is deleted, in
// bulk, by the statement of the next period; one a stopped replica left behind is published by the
// sweep and then deleted as well.
describe('the tasks outbox', () => {
  const database = useTestDatabase('tasks');
  let h: TaskRepoHarness;

  beforeAll(async () => {
    if (!database.available) return;
    h = await taskRepoHarness(database.url);
  });
  afterAll(async () => {
    await h?.close();
  });

  const rowsOf = async (taskNumbers: string[]) =>
    (await h.hot.query<{ task_number: string }>('SELECT task_number FROM task_events WHERE task_number = ANY($1::text[])', [taskNumbers])).rows.length;

  it('deletes the rows of published events with one statement per period', async () => {
    if (!database.available) return;
    const outbox = new Outbox(h.db, h.hot, h.bus, silentLogger());
    const repo = new TaskRepo(h.db, h.hot, outbox);
    const numbers = ['TO-PUB-1', 'TO-PUB-2'];
    for (const taskNumber of numbers) {
      await repo.create({ taskNumber, appId: 'demo-agent', kind: 'agent', accountId: 1, apiKeyId: 1, mode: 'async', request, idempotencyKey: null, requestHash: null });
    }
    await repo.claim('worker-o', 60_000, 2);
    expect(await rowsOf(numbers)).toBe(4);
    await outbox.flush();
    expect(await rowsOf(numbers)).toBe(0);
    expect(h.events.filter((e) => numbers.includes(e.task_number)).map((e) => e.status)).toEqual([TaskStatus.Waiting, TaskStatus.Waiting, TaskStatus.Running, TaskStatus.Running]);
  });

  /** An event row a stopped replica left unpublished a minute ago; its payload. */
  const leftBehind = async (taskNumber: string) => {
    const payload = { task_number: taskNumber, status: TaskStatus.Waiting, kind: 'agent', app_id: 'demo-agent', account_id: 1, api_key_id: 1, at: new Date().toISOString() };
    await h.hot.query(`INSERT INTO task_events (task_number, subject, payload, created_at) VALUES ($1, $2, $3::jsonb, LOCALTIMESTAMP - interval '1 minute')`, [
      taskNumber,
      `tasks.status.${taskNumber}`,
      JSON.stringify(payload),
    ]);
    return payload;
  };

  it('publishes a row nobody handed over once its grace period is over, then deletes it', async () => {
    if (!database.available) return;
    const payload = await leftBehind('TO-LEFT-1');
    await new Outbox(h.db, h.hot, h.bus, silentLogger(), 10_000).flush();
    expect(h.events.filter((e) => e.task_number === 'TO-LEFT-1')).toEqual([payload]);
    expect(await rowsOf(['TO-LEFT-1'])).toBe(0);
  });

  it('keeps an event until the in-process bus says its durable consumers have it, so a process killed before then publishes it again', async () => {
    if (!database.available) return;
    // The process that "dies": its fan-out consumer never finishes with the event.
    const dying = createMemoryBus();
    let unblock!: () => void;
    const blocked = new Promise<void>((r) => (unblock = r));
    await dying.subscribe({ durable: 'fanout', subjects: 'tasks.status.>', handler: () => blocked });
    const before = new Outbox(h.db, h.hot, dying, silentLogger(), 0);
    await new TaskRepo(h.db, h.hot, before).create({ taskNumber: 'TO-KILL-1', appId: 'demo-agent', kind: 'agent', accountId: 1, apiKeyId: 1, mode: 'async', request, idempotencyKey: null, requestHash: null });
    await before.flush();
    await before.flush();
    expect(await rowsOf(['TO-KILL-1'])).toBe(1);

    // The restarted process: a new bus whose consumer takes it.
    const restarted = createMemoryBus();
    const got: string[] = [];
    await restarted.subscribe<{ task_number: string }>({ durable: 'fanout', subjects: 'tasks.status.>', handler: async (m) => void got.push(m.data.task_number) });
    const after = new Outbox(h.db, h.hot, restarted, silentLogger(), 0);
    await after.flush();
    for (let i = 0; i < 100 && !got.includes('TO-KILL-1'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(got).toContain('TO-KILL-1');
    await after.flush();
    expect(await rowsOf(['TO-KILL-1'])).toBe(0);
    unblock();
    await Promise.all([dying.close(), restarted.close()]);
  });

  it('lets the sweep wait for a busy database instead of giving up after two seconds', async () => {
    if (!database.available) return;
    const payload = await leftBehind('TO-BUSY-1');
    const lines: string[] = [];
    const log = createLogger({ name: 'outbox-test', level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    // One connection, held for 3 s by another transaction (a slow start, a burst of writes).
    const db = new PrismaClient({ adapter: pgAdapter(database.url, { max: 1 }) });
    try {
      const holder = db.$transaction(() => new Promise((resolve) => setTimeout(resolve, 3_000)), { timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await new Outbox(db, h.hot, h.bus, log, 10_000).flush();
      await holder;
      expect(lines).toEqual([]);
      expect(h.events.filter((e) => e.task_number === 'TO-BUSY-1')).toEqual([payload]);
    } finally {
      await db.$disconnect();
    }
  });
});
