import { Client } from 'pg';
import { createMemoryBus, TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { EXACT_TOTAL_CAP, EXACT_WAITING_CAP } from '../../src/repo/task-repo';
import { admin, exec, owner, recordStatusEvents, startReplica, stranger, userMessage, type Replica } from '../support/replica';

/** Seconds in an `estimated_time` such as "about 0.4 seconds" / "about 3 seconds" / "about 2 minutes". */
function seconds(estimate: string): number {
  const m = /^about (\d+(?:\.\d+)?) (second|seconds|minutes)$/.exec(estimate);
  if (!m) throw new Error(`not an estimate: ${estimate}`);
  return Number(m[1]) * (m[2] === 'minutes' ? 60 : 1);
}

/** `n` tasks of `accountId` written straight into the table (one statement), as a long history would leave them, analyzed as autovacuum would. */
async function seedTasks(url: string, accountId: number, n: number, kind = 'agent', status: string = TaskStatus.Completed): Promise<void> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await pg.query(
      `INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, created_at, updated_at)
       SELECT 'seed-' || $1::int || '-' || $3::text || '-' || CASE WHEN $4 = '已完成' THEN '' ELSE 'queued-' END || g, 'demo-agent', $3, $1, 1, $4, 'async', '{}'::jsonb, now(), now()
       FROM generate_series(1, $2::int) g`,
      [accountId, n, kind, status],
    );
    await pg.query('ANALYZE tasks');
  } finally {
    await pg.end();
  }
}

// The task list on an index with a capped total, and the O(1) wait estimate from finished runs.
describe('task list and wait estimate', () => {
  const database = useTestDatabase();
  const bus = createMemoryBus();
  const replicas: Replica[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const r = await startReplica(database.url, bus, { TASKS_WORKERS: '1', TASKS_POLL_MS: '50', ...env });
    replicas.push(r);
    return r;
  };
  afterEach(async () => {
    for (const r of replicas.splice(0)) await r.stop();
  });
  afterAll(async () => {
    await bus.close();
  });

  const list = (r: Replica, actor: typeof owner, page: number, pageSize: number, extra: { kind?: string; status?: string[] } = {}) =>
    r.client.listTasks({ actor, page: { page, pageSize }, status: extra.status ?? [], kind: extra.kind ?? '', appId: '', createdFrom: '', createdTo: '' });

  it('pages newest first with an exact total up to EXACT_TOTAL_CAP (100) and an estimate above, per account', async () => {
    if (!database.available) return;
    const r = await start({ TASKS_WORKERS: '0' });
    await seedTasks(database.url, stranger.accountId, 7, 'chat');
    const few = await list(r, stranger, 1, 5);
    expect(few.page).toMatchObject({ page: 1, pageSize: 5, total: 7 });
    expect(few.items.map((t) => t.taskNumber)).toEqual([7, 6, 5, 4, 3].map((g) => `seed-2-chat-${g}`));
    const second = await list(r, stranger, 2, 5);
    expect(second.items.map((t) => t.taskNumber)).toEqual(['seed-2-chat-2', 'seed-2-chat-1']);

    await seedTasks(database.url, owner.accountId, EXACT_TOTAL_CAP, 'chat');
    await seedTasks(database.url, owner.accountId, 1_500);
    const big = await list(r, owner, 1, 20);
    expect(big.items).toHaveLength(20);
    expect(big.items[0].taskNumber).toBe('seed-1-agent-1500');
    expect(big.items.every((t) => t.taskNumber.startsWith('seed-1-'))).toBe(true);
    expect(big.page!.total).toBeGreaterThan(1_000);
    // A filter that matches up to the cap of the big account's rows is exact again.
    const chats = await list(r, owner, 1, 20, { kind: 'chat' });
    expect(chats.page!.total).toBe(EXACT_TOTAL_CAP);
    expect((await list(r, owner, 1, 20, { kind: 'workflow' })).page!.total).toBe(0);
    // The stranger still sees only their 7; the admin sees everyone's, estimated above 1,000.
    expect((await list(r, stranger, 1, 100)).page!.total).toBe(7);
    const all = await list(r, admin, 1, 10);
    expect(all.page!.total).toBeGreaterThan(1_000);
    expect(all.items[0].taskNumber).toBe('seed-1-agent-1500');
    // A deep page is still served, and the total is never below what was paged through.
    const deep = await list(r, owner, 75, 20);
    expect(deep.items.map((t) => t.taskNumber).at(-1)).toBe('seed-1-agent-1');
    expect(deep.page!.total).toBeGreaterThanOrEqual(1_500);
    // The last page (short) gives the exact total; a page far beyond the end does not grow it.
    const last = await list(r, owner, 54, 30);
    expect(last.items).toHaveLength(10);
    expect(last.page!.total).toBe(EXACT_TOTAL_CAP + 1_500);
    const beyond = await list(r, owner, 10_000, 100);
    expect(beyond.items).toEqual([]);
    expect(beyond.page!.total).toBeLessThan(10_000);
    const farthest = await list(r, owner, 2_147_483_647, 100);
    expect(farthest.page!.total).toBeLessThan(2_147_483_647);
  });

  it('estimates a submission from the queue ahead of it: counted up to EXACT_WAITING_CAP, the planner\'s figure above', async () => {
    if (!database.available) return;
    const r = await start({ TASKS_WORKERS: '0' }); // one slot; nothing finished yet: 5 s per run
    const run = { appId: 'demo-agent', kind: 'agent', messages: userMessage('queued') };
    expect((await r.client.submitAsync(exec(run))).estimatedTime).toBe('about 5 seconds');
    // The estimate uses the last count and recounts in the background once it is a quarter second
    // old: submit (each adds one to the queue) until the recount shows.
    const estimateOnceRecounted = async (wanted: (estimate: string) => boolean) => {
      let estimate = '';
      for (let i = 0; i < 10 && !wanted(estimate); i++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        estimate = (await r.client.submitAsync(exec(run))).estimatedTime;
      }
      return estimate;
    };
    await seedTasks(database.url, owner.accountId, 30, 'agent', TaskStatus.Waiting);
    // 30 seeded + the submissions so far: 32 runs (or a few more) × 5 s.
    expect(await estimateOnceRecounted((e) => e === 'about 3 minutes')).toBe('about 3 minutes');
    await seedTasks(database.url, stranger.accountId, EXACT_WAITING_CAP * 2, 'agent', TaskStatus.Waiting);
    const minutes = seconds(await estimateOnceRecounted((e) => e !== '' && seconds(e) / 60 > 100)) / 60;
    expect(minutes).toBeGreaterThan((EXACT_WAITING_CAP * 1.5 * 5) / 60);

    const pg = new Client({ connectionString: database.url }); // the queue is this test's own: empty it for the next
    await pg.connect();
    await pg.query('DELETE FROM tasks WHERE status = $1', [TaskStatus.Waiting]);
    await pg.end();
  });

  it('refuses bad paging and unknown statuses with a field error', async () => {
    if (!database.available) return;
    const r = await start({ TASKS_WORKERS: '0' });
    await expect(list(r, owner, 1, 101)).rejects.toMatchObject({ message: expect.stringContaining('between 1 and 100') });
    await expect(list(r, owner, 1, 10, { status: ['nope'] })).rejects.toMatchObject({ message: expect.stringContaining('unknown status') });
  });

  it('estimates an app from its recent runs: within 2x of the truth after a few runs, and after a restart', async () => {
    if (!database.available) return;
    const r = await start();
    const events = await recordStatusEvents(bus);
    // Each run: 4 chunks with a per-chunk delay, so a few hundred ms each.
    const run = { appId: 'demo-agent', kind: 'agent', messages: userMessage('one two three four'), callParams: { echo_delay_ms: 90 } };
    const first = await r.client.submitAsync(exec(run));
    expect(first.estimatedTime).toBe('about 5 seconds'); // nothing known yet: the default
    const durations: number[] = [];
    const done = await events.waitFor(first.taskNumber, TaskStatus.Completed);
    durations.push(done.duration_ms!);
    for (let i = 0; i < 3; i++) {
      const s = await r.client.submitAsync(exec(run));
      durations.push((await events.waitFor(s.taskNumber, TaskStatus.Completed)).duration_ms!);
    }
    await events.stop();
    const truth = durations.reduce((a, b) => a + b, 0) / durations.length / 1000;
    const estimate = seconds((await r.client.submitAsync(exec(run))).estimatedTime);
    expect(estimate).toBeGreaterThanOrEqual(truth / 2);
    expect(estimate).toBeLessThanOrEqual(truth * 2);

    // Stopping writes the figure back (one row per app); a fresh replica reads it instead of the default.
    await r.stop();
    replicas.splice(replicas.indexOf(r), 1);
    const pg = new Client({ connectionString: database.url });
    await pg.connect();
    const { rows } = await pg.query('SELECT ewma_ms, samples FROM app_run_stats WHERE app_id = $1', ['demo-agent']);
    await pg.end();
    expect(rows).toHaveLength(1);
    expect(rows[0].samples).toBeGreaterThanOrEqual(4);
    expect(rows[0].ewma_ms / 1000).toBeGreaterThanOrEqual(truth / 2);
    expect(rows[0].ewma_ms / 1000).toBeLessThanOrEqual(truth * 2);
    const again = await start({ TASKS_WORKERS: '0' });
    const after = seconds((await again.client.submitAsync(exec(run))).estimatedTime);
    expect(after).toBeGreaterThanOrEqual(truth / 2);
    expect(after).toBeLessThanOrEqual(truth * 2 * 2); // one more waiting task may double it (1 slot)
  });
});
