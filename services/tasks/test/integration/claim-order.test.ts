import pg from 'pg';
import { HotPool, createMemoryBus, silentLogger, TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { Outbox } from '../../src/repo/outbox';
import { CLAIM_SQL, TaskRepo } from '../../src/repo/task-repo';

const QUEUED = 3_000;
const FINISHED = 2_000;

interface PlanNode {
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
}

// The tasks table as a queue: a claim takes the oldest claimable task by walking the queue in order;
// its cost does not grow with the number of waiting tasks.
describe('claiming the next async task', () => {
  const database = useTestDatabase('tasks');
  let db: TasksDb;
  let hot: HotPool;
  let repo: TaskRepo;

  beforeAll(async () => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    hot = new HotPool(database.url, { max: 2, maxWaiting: 100 });
    repo = new TaskRepo(db, hot, new Outbox(db, hot, createMemoryBus(), silentLogger()));
    // Older finished tasks first, then the queue (ids in that order), as in a table that has served a while.
    await hot.query(
      `INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, attempts, updated_at)
       SELECT 'TQ' || lpad(g::text, 8, '0'), 'demo-agent', 'agent', 1, 1, CASE WHEN g <= $1 THEN $2 ELSE $3 END, 'async',
              jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', repeat('x', 200)))),
              CASE WHEN g <= $1 THEN 1 ELSE 0 END, now()
       FROM generate_series(1, $4::int) g`,
      [FINISHED, TaskStatus.Completed, TaskStatus.Waiting, FINISHED + QUEUED],
    );
    await hot.query('ANALYZE tasks');
  });
  afterAll(async () => {
    await hot?.end();
    await db?.$disconnect();
  });

  it('claims the oldest waiting task first', async () => {
    if (!database.available) return;
    const first = (await repo.claim('worker-a', 30_000, 1))[0];
    const second = (await repo.claim('worker-b', 30_000, 1))[0];
    expect([first?.taskNumber, second?.taskNumber]).toEqual([`TQ${String(FINISHED + 1).padStart(8, '0')}`, `TQ${String(FINISHED + 2).padStart(8, '0')}`]);
    expect(first).toMatchObject({ status: TaskStatus.Running, leaseOwner: 'worker-a', attempts: 1 });
  });

  it('takes a task whose lease ran out before newer waiting ones, and never one whose lease still runs', async () => {
    if (!database.available) return;
    // The first claimed task's worker stopped: its lease ran out. The second's is still held.
    await hot.query(`UPDATE tasks SET lease_expires_at = now() - interval '1 minute' WHERE task_number = $1`, [`TQ${String(FINISHED + 1).padStart(8, '0')}`]);
    const again = (await repo.claim('worker-c', 30_000, 1))[0];
    expect(again).toMatchObject({ taskNumber: `TQ${String(FINISHED + 1).padStart(8, '0')}`, leaseOwner: 'worker-c', attempts: 2 });
    const next = (await repo.claim('worker-c', 30_000, 1))[0];
    expect(next?.taskNumber).toBe(`TQ${String(FINISHED + 3).padStart(8, '0')}`);
  });

  it('reads as many pages for a claim with a long queue and a long history as with a short one', async () => {
    if (!database.available) return;
    const before = await claimPages();
    // Most of the queue is worked off, and twenty thousand more tasks wait behind it.
    await hot.query(`UPDATE tasks SET status = $1, attempts = 1 WHERE status = $2 AND id <= (SELECT min(id) + 2500 FROM tasks WHERE status = $2)`, [TaskStatus.Completed, TaskStatus.Waiting]);
    await hot.query(
      `INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, updated_at)
       SELECT 'TR' || lpad(g::text, 8, '0'), 'demo-agent', 'agent', 1, 1, $1, 'async', '{}'::jsonb, now() FROM generate_series(1, 20000) g`,
      [TaskStatus.Waiting],
    );
    await hot.query('VACUUM ANALYZE tasks');
    const after = await claimPages();
    // Reading the waiting tasks, or walking past the finished ones, takes hundreds to thousands of pages here.
    expect(after).toBeLessThan(before + 20);
  });

  it('claims several tasks in one statement, oldest first, and two claims at once never share one', async () => {
    if (!database.available) return;
    const [a, b] = await Promise.all([repo.claim('batch-a', 30_000, 5), repo.claim('batch-b', 30_000, 5)]);
    const numbers = [...a, ...b].map((t) => t.taskNumber);
    expect(new Set(numbers).size).toBe(10);
    for (const [owner, claimed] of [['batch-a', a], ['batch-b', b]] as const) {
      expect(claimed).toHaveLength(5);
      expect(claimed.map((t) => t.taskNumber)).toEqual(claimed.map((t) => t.taskNumber).sort());
      expect(claimed.every((t) => t.status === TaskStatus.Running && t.leaseOwner === owner && t.attempts === 1)).toBe(true);
    }
    const { rows } = await hot.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks WHERE lease_owner = ANY($1::text[])', [['batch-a', 'batch-b']]);
    expect(rows[0].n).toBe(10);
  });

  /** Pages one claim reads and writes, from its plan (the claim is rolled back). */
  async function claimPages(): Promise<number> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
      const lease = new Date(Date.now() + 30_000).toISOString().replace('T', ' ').replace('Z', '');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${CLAIM_SQL}`, ['worker-d', lease, now, 1]);
      const plan = rows[0]['QUERY PLAN'][0].Plan;
      return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  }
});
