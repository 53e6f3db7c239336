import { Client } from 'pg';
import { HotPool, createMemoryBus, silentLogger } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { Outbox } from '../../src/repo/outbox';
import { EXACT_TOTAL_CAP, TaskRepo } from '../../src/repo/task-repo';

/** `n` finished tasks of `accountId`, written in one statement and analyzed, as a long history would leave them. */
async function seed(url: string, accountId: number, n: number, tag: string): Promise<void> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await pg.query(
      `INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, created_at, updated_at)
       SELECT 'est-' || $3::text || '-' || g, 'demo-agent', 'agent', $1, 1, '已完成', 'async', '{}'::jsonb, now(), now() FROM generate_series(1, $2::int) g`,
      [accountId, n, tag],
    );
    await pg.query('ANALYZE tasks');
  } finally {
    await pg.end();
  }
}

const until = async (probe: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 10));
};

// A long list's total is the planner's estimate, kept per filter for a short while (page one then costs what a short list's costs).
describe('task list estimate above the exact cap', () => {
  const database = useTestDatabase('tasks');
  let db: TasksDb;
  let hot: HotPool;
  let clock = 0;
  let repo: TaskRepo;

  beforeAll(() => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    hot = new HotPool(database.url, { max: 2, maxWaiting: 100 });
    repo = new TaskRepo(db, hot, new Outbox(db, hot, createMemoryBus(), silentLogger()), { maxAgeMs: 1_000, now: () => clock });
  });
  afterAll(async () => {
    await hot?.end();
    await db?.$disconnect();
  });

  it('is asked once per filter while fresh, answered from the last figure once old while asked again, then follows the table', async () => {
    if (!database.available) return;
    await seed(database.url, 1, 1_500, 'a');
    const first = (await repo.list({ accountId: 1 }, 0, 20)).total;
    expect(first).toBeGreaterThan(EXACT_TOTAL_CAP);
    expect(first).toBeGreaterThan(1_000);
    expect(first).toBeLessThan(3_000);

    await seed(database.url, 1, 6_000, 'b');
    // Still fresh: the figure of the first page, although the table has four times the rows now.
    expect((await repo.list({ accountId: 1 }, 0, 20)).total).toBe(first);
    // Another filter is asked on its own.
    expect((await repo.list({ accountId: 1, kind: 'agent' }, 0, 20)).total).toBeGreaterThan(6_000);

    clock += 1_001;
    // Old: the last figure at once, a new one asked in the background ...
    expect((await repo.list({ accountId: 1 }, 0, 20)).total).toBe(first);
    // ... which the following pages show.
    let latest = first;
    await until(async () => (latest = (await repo.list({ accountId: 1 }, 0, 20)).total) !== first);
    expect(latest).toBeGreaterThan(6_000);
    expect(latest).toBeLessThan(12_000);
    // Below the cap the total stays exact, whatever is remembered.
    expect((await repo.list({ accountId: 2 }, 0, 20)).total).toBe(0);
  });
});
