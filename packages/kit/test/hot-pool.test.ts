import { AppError, ErrorCode } from '../src/errors';
import { HotPool } from '../src/db/hot-pool';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '../src/testing/postgres';

// A bounded pool on real PostgreSQL: waits for a connection, but never past the caller's deadline.
describe('HotPool', () => {
  let url: string | null;
  let pool: HotPool;
  beforeAll(async () => {
    url = await createTestDatabase('hotpool');
    if (!url) throw new Error('PostgreSQL is required for this test');
    pool = new HotPool(url, { max: 1, maxWaiting: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    if (url) await dropTestDatabase(url);
    await releaseTestPostgres();
  });

  /** Occupies the pool's one connection for 0.8 s; resolves once the connection is taken. */
  async function occupy(): Promise<{ done: Promise<unknown> }> {
    const done = pool.query('SELECT pg_sleep(0.8)');
    while (pool.pool.waitingCount > 0 || pool.pool.idleCount > 0) await new Promise((r) => setImmediate(r));
    return { done };
  }

  it('a query without a deadline waits for the busy connection and then runs', async () => {
    const holder = await occupy();
    const waiting = pool.query<{ n: number }>('SELECT 1 AS n');
    await expect(waiting).resolves.toMatchObject({ rows: [{ n: 1 }] });
    await holder.done;
  });

  it('a query whose caller will have given up before a connection frees is refused with UNAVAILABLE and a retry hint', async () => {
    const holder = await occupy();
    const refused = await pool.query('SELECT 1', [], { deadline: Date.now() + 600 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe(ErrorCode.Unavailable);
    expect((refused as AppError).details.retryAfterSeconds).toBe(1);
    await holder.done;
    // The connection the refused query would have had went back to the pool.
    await expect(pool.query<{ n: number }>('SELECT 2 AS n')).resolves.toMatchObject({ rows: [{ n: 2 }] });
  });

  it("a query given no deadline is refused with UNAVAILABLE well before a caller's default 10 s deadline", async () => {
    const holder = pool.query('SELECT pg_sleep(7)');
    while (pool.pool.waitingCount > 0 || pool.pool.idleCount > 0) await new Promise((r) => setImmediate(r));
    const refused = await pool.query('SELECT 1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe(ErrorCode.Unavailable);
    await holder;
  }, 20_000);

  it('a caller with a far deadline waits like one without', async () => {
    const holder = await occupy();
    const waited = pool.query<{ n: number }>('SELECT 3 AS n', [], { deadline: Date.now() + 30_000 });
    await expect(waited).resolves.toMatchObject({ rows: [{ n: 3 }] });
    await holder.done;
  });

  it('refuses at once beyond its waiting bound', async () => {
    const holder = await occupy();
    const queued = [pool.query('SELECT 1'), pool.query('SELECT 1')];
    const third = await pool.query('SELECT 1').catch((e: unknown) => e);
    expect((third as AppError).code).toBe(ErrorCode.Unavailable);
    await Promise.all([holder.done, ...queued]);
  });

  it('a statement error leaves the pool usable', async () => {
    const holder = await occupy();
    const failing = pool.query('SELECT 1/0', [], { deadline: Date.now() + 5_000 });
    await expect(failing).rejects.toThrow(/division by zero/);
    await holder.done;
    await expect(pool.query<{ n: number }>('SELECT 4 AS n')).resolves.toMatchObject({ rows: [{ n: 4 }] });
  });

  it('runs each statement text as one named prepared statement on its connection, with its own values each time', async () => {
    const sql = 'SELECT $1::int * 2 AS doubled';
    const first = await pool.query<{ doubled: number }>(sql, [2]);
    const second = await pool.query<{ doubled: number }>(sql, [21]);
    expect([first.rows[0].doubled, second.rows[0].doubled]).toEqual([4, 42]);
    // The pool's one connection holds it, prepared once.
    const { rows } = await pool.query<{ statement: string; calls: string }>(
      'SELECT statement, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE statement = $1',
      [sql],
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].calls)).toBe(2);
  });

  it("a table changed under a prepared statement (a migration adding a column) is re-prepared, not an error", async () => {
    await pool.query('CREATE TABLE reshaped (id int PRIMARY KEY)');
    await pool.query('INSERT INTO reshaped VALUES (1)');
    const sql = 'SELECT * FROM reshaped WHERE id = $1';
    expect((await pool.query(sql, [1])).rows).toEqual([{ id: 1 }]);
    await pool.query("ALTER TABLE reshaped ADD COLUMN label text NOT NULL DEFAULT 'x'");
    // PostgreSQL refuses the old plan ('cached plan must not change result type'); the statement never ran.
    expect((await pool.query(sql, [1])).rows).toEqual([{ id: 1, label: 'x' }]);
    expect((await pool.query(sql, [1])).rows).toEqual([{ id: 1, label: 'x' }]);
  });
});
