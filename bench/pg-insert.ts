import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';

export interface InsertResult {
  clients: number;
  seconds: number;
  rowsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

/**
 * pgbench-style: `clients` connections each insert one row per autocommit statement, as fast as
 * they can, for `seconds`, into a fresh table on the given database (dropped afterwards).
 */
export async function insertRate(connectionString: string, clients: number, seconds: number): Promise<InsertResult> {
  const table = `bench_insert_${randomBytes(4).toString('hex')}`;
  const pool = new Pool({ connectionString, max: clients });
  try {
    await pool.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, payload text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1_000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < deadline) {
            const t = performance.now();
            await client.query(`INSERT INTO ${table} (payload) VALUES ($1)`, ['tollgate benchmark row']);
            latencies.push(performance.now() - t);
          }
        } finally {
          client.release();
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1_000;
    latencies.sort((a, b) => a - b);
    return { clients, seconds: Math.round(elapsed * 10) / 10, rowsPerSecond: Math.round(latencies.length / elapsed), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await pool.end();
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function postgresVersion(connectionString: string): Promise<string> {
  const pool = new Pool({ connectionString, max: 1 });
  try {
    return String((await pool.query('SHOW server_version')).rows[0].server_version);
  } finally {
    await pool.end();
  }
}
