import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * Bench-only bulk inserts straight into a service's database (one statement each), then VACUUM
 * ANALYZE, as autovacuum does on its own after a bulk insert (PostgreSQL 13+ vacuums insert-only
 * tables), and a CHECKPOINT, so that the writing of the seeded pages is not counted as
 * PostgreSQL CPU of the requests measured next: the lists are measured in that steady state, not
 * while the first reads set hint bits or the checkpointer flushes the load.
 */
async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `n` finished tasks of `accountId`. */
export function seedTasks(url: string, accountId: number, n: number): Promise<void> {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  return withClient(url, async (c) => {
    await c.query(
      `INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, result, created_at, updated_at, started_at, finished_at)
       SELECT $1 || '-' || g, 'demo-agent', 'agent', $2, 0, '已完成', 'async', '{"messages":[{"role":"user","content":"hello"}]}'::jsonb, '{"content":"hello"}'::jsonb,
              now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour'
       FROM generate_series(1, $3::int) g`,
      [prefix, accountId, n],
    );
    await c.query('VACUUM ANALYZE tasks');
    await c.query('CHECKPOINT');
  });
}

/** `n` published ~1 KB documents by `accountId`. */
export function seedDocuments(url: string, accountId: number, n: number): Promise<void> {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  return withClient(url, async (c) => {
    await c.query(
      `INSERT INTO documents (slug, title, content, category, tags, author_account_id, status, version, created_at, updated_at)
       SELECT $1 || '-' || g, 'Bench document ' || g, repeat('Some benchmark text. ', 50), 'bench', ARRAY['bench'], $2, 'published', 1,
              now() - interval '1 day' + g * interval '1 millisecond', now() - interval '1 day' + g * interval '1 millisecond'
       FROM generate_series(1, $3::int) g`,
      [prefix, accountId, n],
    );
    await c.query('VACUUM ANALYZE documents');
    await c.query('CHECKPOINT');
  });
}

const UNFINISHED_SQL = `SELECT count(*) AS n FROM tasks WHERE mode = 'async' AND status IN ('等待中', '执行中')`;

/** Async tasks not finished yet (waiting or running). */
export function countUnfinished(url: string): Promise<number> {
  return withClient(url, async (c) => Number((await c.query(UNFINISHED_SQL)).rows[0].n));
}

/** Waits until no async task is waiting or running; returns how many are left at the deadline (0 when done). */
export function waitForBacklog(url: string, timeoutMs: number): Promise<number> {
  return withClient(url, async (c) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = Number((await c.query(UNFINISHED_SQL)).rows[0].n);
      if (left === 0 || Date.now() > deadline) return left;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}
