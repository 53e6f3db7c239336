import { HotPool, createMemoryBus, silentLogger, TaskStatus } from '@tollgate/kit';
import { Outbox } from '../../src/repo/outbox';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { TaskRepo } from '../../src/repo/task-repo';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/support/fake-openai';
import { exec, owner, recordStatusEvents, startReplica, userMessage, type Replica } from '../support/replica';

const slow = (words: number, delayMs: number) => ({ messages: userMessage(Array.from({ length: words }, (_, i) => `w${i}`).join(' ')), callParams: { echo_delay_ms: delayMs } });

async function until<T>(probe: () => Promise<T | undefined | null | false>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// The tasks table as a durable queue: leases, heartbeats, re-claims, several replicas, cancellation.
describe('durable async execution', () => {
  const database = useTestDatabase();
  const bus = createMemoryBus();
  let db: TasksDb;
  let repo: TaskRepo;
  let hot: HotPool;
  const replicas: Replica[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const r = await startReplica(database.url, bus, env);
    replicas.push(r);
    return r;
  };

  beforeAll(() => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    hot = new HotPool(database.url, { max: 2, maxWaiting: 100 });
    repo = new TaskRepo(db, hot, new Outbox(db, hot, bus, silentLogger()));
  });
  afterEach(async () => {
    for (const r of replicas.splice(0)) await r.stop();
  });
  afterAll(async () => {
    await hot?.end();
    await db?.$disconnect();
  });

  it('claims submissions that arrive one by one in one statement: the claim lingers for what arrives after its wake-up', async () => {
    if (!database.available) return;
    const events = await recordStatusEvents(bus);
    const r = await start({ TASKS_WORKERS: '10', TASKS_CLAIM_LINGER_MS: '1000', TASKS_POLL_MS: '60000' });
    const submitted = [];
    const began = Date.now();
    for (let i = 0; i < 10; i++) {
      submitted.push(await r.client.submitAsync(exec({ appId: 'demo-agent', kind: 'agent', ...slow(2, 0) })));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A claim takes what arrived during its 1 s linger: two claims for submissions spread over under
    // a second, one more per further second a slow machine took (one claim per task without the linger).
    const claimsAllowed = 1 + Math.ceil((Date.now() - began) / 1_000);
    for (const s of submitted) await events.waitFor(s.taskNumber, TaskStatus.Completed);
    // One claim statement gives every task it takes the same start time and lease end.
    const rows = await db.task.findMany({ where: { taskNumber: { in: submitted.map((s) => s.taskNumber) } }, select: { startedAt: true, attempts: true } });
    expect(rows.every((t) => t.attempts === 1)).toBe(true);
    expect(new Set(rows.map((t) => t.startedAt!.getTime())).size).toBeLessThanOrEqual(Math.max(2, claimsAllowed));
    await events.stop();
  });

  it('shares the work between replicas and finishes every task exactly once', async () => {
    if (!database.available) return;
    const events = await recordStatusEvents(bus);
    const a = await start({ TASKS_WORKERS: '1' });
    await start({ TASKS_WORKERS: '1' });
    const submitted = await Promise.all(Array.from({ length: 6 }, () => a.client.submitAsync(exec({ appId: 'demo-agent', kind: 'agent', ...slow(4, 60) }))));
    const owners = new Set<string>();
    await until(async () => {
      const running = await db.task.findMany({ where: { status: TaskStatus.Running }, select: { leaseOwner: true } });
      running.forEach((r) => owners.add(r.leaseOwner!));
      return owners.size >= 2;
    });
    for (const s of submitted) await events.waitFor(s.taskNumber, TaskStatus.Completed);
    for (const s of submitted) {
      expect(events.of(s.taskNumber).map((e) => e.status)).toEqual([TaskStatus.Waiting, TaskStatus.Running, TaskStatus.Completed]);
    }
    const rows = await db.task.findMany({ where: { taskNumber: { in: submitted.map((s) => s.taskNumber) } } });
    expect(rows.every((r) => r.status === TaskStatus.Completed && r.attempts === 1 && r.leaseOwner === null)).toBe(true);
    await events.stop();
  });

  it('hands a running task to another replica when its replica stops, and finishes it once', async () => {
    if (!database.available) return;
    const events = await recordStatusEvents(bus);
    const a = await start({ TASKS_WORKERS: '1', TASKS_WORKER_ID: 'replica-a' });
    const { taskNumber } = await a.client.submitAsync(exec({ appId: 'demo-workflow', kind: 'workflow', ...slow(6, 100) }));
    await until(async () => (await repo.find(taskNumber))?.leaseOwner === 'replica-a');
    await a.stop();
    replicas.splice(replicas.indexOf(a), 1);
    await start({ TASKS_WORKERS: '1', TASKS_WORKER_ID: 'replica-b' });
    await events.waitFor(taskNumber, TaskStatus.Completed);
    const task = (await repo.find(taskNumber))!;
    expect(task.attempts).toBe(2);
    expect((task.result as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('Echo: w0 w1 w2 w3 w4 w5');
    expect(events.of(taskNumber).filter((e) => e.status === TaskStatus.Completed)).toHaveLength(1);
    await events.stop();
  });

  it('lets nobody but the current lease holder finish a task', async () => {
    if (!database.available) return;
    const created = await repo.create({ taskNumber: `Tlease${Date.now()}`, appId: 'demo-agent', kind: 'agent', accountId: 1, apiKeyId: 1, mode: 'async', request: { messages: userMessage('x') as never, call_params: {}, stream: false }, idempotencyKey: null, requestHash: null });
    if (created === 'duplicate') throw new Error('unexpected duplicate');
    const first = (await repo.claim('zombie', 1, 1))[0];
    expect(first?.taskNumber).toBe(created.taskNumber);
    await new Promise((r) => setTimeout(r, 20));
    const second = (await repo.claim('rescuer', 60_000, 1))[0];
    expect(second?.taskNumber).toBe(created.taskNumber);
    expect(second?.attempts).toBe(2);
    expect(await repo.heartbeat(created.taskNumber, 'zombie', 60_000)).toBe(false);
    expect(await repo.transition(created.taskNumber, [TaskStatus.Running], TaskStatus.Completed, {}, 'zombie')).toBeNull();
    expect(await repo.heartbeat(created.taskNumber, 'rescuer', 60_000)).toBe(true);
    expect((await repo.transition(created.taskNumber, [TaskStatus.Running], TaskStatus.Completed, {}, 'rescuer'))?.status).toBe(TaskStatus.Completed);
  });

  it('gives a task up after the last attempt, and fails sync tasks whose replica died', async () => {
    if (!database.available) return;
    const events = await recordStatusEvents(bus);
    const base = { appId: 'demo-agent', kind: 'agent', accountId: 1, apiKeyId: 1, request: { messages: userMessage('x') as never, call_params: {}, stream: false }, idempotencyKey: null, requestHash: null };
    const doomed = `Tdoomed${Date.now()}`;
    await repo.create({ ...base, taskNumber: doomed, mode: 'async' });
    await db.task.update({ where: { taskNumber: doomed }, data: { status: TaskStatus.Running, attempts: 3, leaseOwner: 'gone', leaseExpiresAt: new Date(Date.now() - 1000) } });
    const orphan = `Torphan${Date.now()}`;
    await repo.create({ ...base, taskNumber: orphan, mode: 'sync' });
    // A sync task is written once, finished; a row still running is left by an older version of the service.
    await db.task.update({ where: { taskNumber: orphan }, data: { status: TaskStatus.Running, attempts: 1, leaseOwner: 'gone', leaseExpiresAt: new Date(Date.now() - 1000) } });
    await start({ TASKS_WORKERS: '1', TASKS_MAX_ATTEMPTS: '3' });
    await events.waitFor(doomed, TaskStatus.Failed);
    await events.waitFor(orphan, TaskStatus.Failed);
    expect((await repo.find(doomed))!.comments).toMatch(/given up after 3 attempts/);
    expect((await repo.find(orphan))!.comments).toMatch(/replica running this synchronous task stopped/);
    await events.stop();
  });

  describe('cancelling a running task', () => {
    let fake: FakeOpenAi;
    beforeAll(async () => {
      fake = await startFakeOpenAi({ slowChunkMs: 30 });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('stops its upstream call and ends it 已取消, never 已完成', async () => {
      if (!database.available) return;
      const events = await recordStatusEvents(bus);
      const r = await start({ TASKS_WORKERS: '1' });
      await r.client.createApp({ actor: owner, app: { appId: 'slow-upstream', kind: 'chatbot', name: 'slow', ownerAccountId: 0, provider: 'openai-compatible', model: 'fake-hang', systemPrompt: '', settings: {}, public: false, createdAt: '', updatedAt: '', baseUrl: fake.baseUrl, apiKey: 'sk-x', hasApiKey: false, timeoutMs: 0, reporterToken: '' } });
      const { taskNumber } = await r.client.submitAsync(exec({ appId: 'slow-upstream', kind: 'chatbot' }));
      await events.waitFor(taskNumber, TaskStatus.Running);
      await until(async () => fake.requests.some((q) => q.body.model === 'fake-hang'));
      const aborted = fake.aborted;
      const cancelled = await r.client.updateStatus({ actor: owner, taskNumber, status: TaskStatus.Cancelled, reporterToken: '' });
      expect(cancelled.status).toBe(TaskStatus.Cancelled);
      await fake.waitForAborts(aborted + 1);
      const final = await events.waitFor(taskNumber, TaskStatus.Cancelled);
      expect(final.never_ran).toBeUndefined();
      await until(async () => r.handle && (await repo.find(taskNumber))?.leaseOwner === null);
      expect(events.of(taskNumber).map((e) => e.status)).toEqual([TaskStatus.Waiting, TaskStatus.Running, TaskStatus.Cancelled]);
      await events.stop();
    });
  });
});
