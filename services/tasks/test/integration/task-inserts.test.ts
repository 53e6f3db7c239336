import pg from 'pg';
import { HotPool, createMemoryBus, isAppError, silentLogger, TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { Outbox } from '../../src/repo/outbox';
import { TaskRepo, type NewTask } from '../../src/repo/task-repo';

// Task rows written while an insert is under way go out together in the next statement (one
// commit for many sync results or async submissions), each answered as its own insert would be.
describe('task inserts', () => {
  const database = useTestDatabase('tasks');
  let db: TasksDb;
  let hot: HotPool;
  let repo: TaskRepo;
  let blocker: pg.Client;
  let seq = 0;

  const newTask = (over: Partial<NewTask> = {}): NewTask => ({
    taskNumber: `TI${process.pid}${Date.now().toString(36)}${++seq}`,
    appId: 'demo-agent',
    kind: 'agent',
    accountId: 1,
    apiKeyId: 1,
    mode: 'sync',
    request: { messages: [{ role: 'user', content: `run ${seq}` }], call_params: {}, stream: false },
    idempotencyKey: null,
    requestHash: null,
    status: TaskStatus.Completed,
    startedAt: new Date(),
    result: { ok: seq },
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    ...over,
  });

  /** Holds back every insert into task_events until the returned release is called. */
  async function holdInserts(): Promise<() => Promise<void>> {
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE task_events IN SHARE MODE');
    return async () => {
      await blocker.query('COMMIT');
    };
  }

  /** Waits until PostgreSQL shows an insert waiting for the lock. */
  async function insertWaiting(): Promise<void> {
    for (;;) {
      const { rows } = await hot.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      if (rows[0].n > 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const writers = async (taskNumbers: string[]) =>
    (await hot.query<{ tx: string }>('SELECT xmin::text AS tx FROM task_events WHERE task_number = ANY($1) ORDER BY id', [taskNumbers])).rows.map((r) => r.tx);

  beforeAll(async () => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    hot = new HotPool(database.url, { max: 4, maxWaiting: 100 });
    repo = new TaskRepo(db, hot, new Outbox(db, hot, createMemoryBus(), silentLogger()));
    blocker = new pg.Client({ connectionString: database.url });
    // The test database is dropped (its connections ended) before this suite's own afterAll runs.
    blocker.on('error', () => undefined);
    await blocker.connect();
  });
  afterAll(async () => {
    await blocker?.end();
    await hot?.end();
    await db?.$disconnect();
  });

  it('writes the tasks that arrive during an insert in one statement, each with its event, answered each', async () => {
    if (!database.available) return;
    const release = await holdInserts();
    const first = newTask();
    const firstWrite = repo.create(first);
    await insertWaiting();
    const rest = Array.from({ length: 6 }, (_, i) => newTask(i % 2 ? { mode: 'async', status: undefined, startedAt: undefined, result: undefined, usage: undefined } : {}));
    const restWrites = Promise.all(rest.map((t) => repo.create(t)));
    await release();
    const written = [await firstWrite, ...(await restWrites)];
    expect(written.map((w) => (w === 'duplicate' ? w : w.taskNumber))).toEqual([first, ...rest].map((t) => t.taskNumber));
    const stored = await repo.findMany(rest.map((t) => t.taskNumber));
    expect(new Map(stored.map((t) => [t.taskNumber, t.status]))).toEqual(new Map(rest.map((t, i) => [t.taskNumber, i % 2 ? TaskStatus.Waiting : TaskStatus.Completed])));
    const stored0 = stored.find((t) => t.taskNumber === rest[0].taskNumber)!;
    expect(stored0).toMatchObject({ result: rest[0].result, usage: rest[0].usage, request: rest[0].request, mode: 'sync' });
    expect(stored0.finishedAt).toBeInstanceOf(Date);
    const events = await writers(rest.map((t) => t.taskNumber));
    expect(events).toHaveLength(6);
    expect(new Set(events).size).toBe(1);
  });

  it('answers duplicate for a task whose idempotency key an earlier task of the same statement took', async () => {
    if (!database.available) return;
    const release = await holdInserts();
    const firstWrite = repo.create(newTask());
    await insertWaiting();
    const idempotencyKey = `idem-${process.pid}-${seq}`;
    const twins = [newTask({ idempotencyKey, accountId: 9 }), newTask({ idempotencyKey, accountId: 9 })];
    const writes = Promise.all(twins.map((t) => repo.create(t)));
    await release();
    await firstWrite;
    const [a, b] = await writes;
    expect(a).not.toBe('duplicate');
    expect(b).toBe('duplicate');
    expect(await repo.findMany(twins.map((t) => t.taskNumber))).toHaveLength(1);
    expect(await writers(twins.map((t) => t.taskNumber))).toHaveLength(1);
  });

  it('writes one task and one event for a task number given twice in one statement', async () => {
    if (!database.available) return;
    const release = await holdInserts();
    const firstWrite = repo.create(newTask());
    await insertWaiting();
    const once = newTask();
    const writes = Promise.all([repo.create(once), repo.create({ ...once, accountId: 8 })]);
    await release();
    await firstWrite;
    const [a, b] = await writes;
    expect(a).not.toBe('duplicate');
    expect(b).toBe('duplicate');
    expect(await writers([once.taskNumber])).toHaveLength(1);
  });

  it("fails only the task PostgreSQL cannot take, not the others of its statement", async () => {
    if (!database.available) return;
    const release = await holdInserts();
    const firstWrite = repo.create(newTask());
    await insertWaiting();
    // A NUL never gets past the gateway; here it stands for any value PostgreSQL refuses.
    const bad = newTask({ request: { messages: [{ role: 'user', content: 'a\u0000b' }], call_params: {}, stream: false } });
    const good = [newTask(), newTask()];
    const writes = Promise.allSettled([good[0], bad, good[1]].map((t) => repo.create(t)));
    await release();
    await firstWrite;
    const [a, refused, b] = await writes;
    expect([a.status, refused.status, b.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await repo.findMany([...good, bad].map((t) => t.taskNumber))).map((t) => t.taskNumber).sort()).toEqual(good.map((t) => t.taskNumber).sort());
  });

  it('refuses with UNAVAILABLE, in time, a task whose statement cannot get a connection before its deadline', async () => {
    if (!database.available) return;
    const onePool = new HotPool(database.url, { max: 1, maxWaiting: 100 });
    const lonely = new TaskRepo(db, onePool, new Outbox(db, onePool, createMemoryBus(), silentLogger()));
    const held = await onePool.pool.connect();
    // Given back after 3 s whatever happens, so a statement that waits for it is not stuck for ever.
    let released = false;
    const release = () => {
      if (!released) held.release();
      released = true;
    };
    const giveBack = setTimeout(release, 3_000);
    try {
      const late = newTask();
      const refused = await lonely.create(late, { deadline: Date.now() + 1_200 }).catch((err: unknown) => err);
      expect(isAppError(refused) && refused.code).toBe('UNAVAILABLE');
      expect(await repo.find(late.taskNumber)).toBeNull();
    } finally {
      clearTimeout(giveBack);
      release();
      await onePool.end();
    }
  });

  it('refuses with UNAVAILABLE, unwritten, a task whose deadline passes while it waits for its statement', async () => {
    if (!database.available) return;
    const release = await holdInserts();
    const firstWrite = repo.create(newTask());
    await insertWaiting();
    const late = newTask();
    const refused = await repo.create(late, { deadline: Date.now() + 700 }).catch((err: unknown) => err);
    await release();
    await firstWrite;
    expect(isAppError(refused) && refused.code).toBe('UNAVAILABLE');
    expect(await repo.find(late.taskNumber)).toBeNull();
  });
});
