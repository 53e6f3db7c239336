import pg from 'pg';

const TOLERATED = new Set(['42P04', '23505']);

/** Creates `dbName` on the server unless it exists; safe when several processes race. Returns true if it created it. */
export async function ensureDatabase(adminConnectionString: string, dbName: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminConnectionString });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(dbName)}`);
    return true;
  } catch (err) {
    if (TOLERATED.has((err as { code?: string }).code ?? '')) return false;
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops `dbName`, disconnecting its sessions (PostgreSQL 13+). */
export async function dropDatabase(adminConnectionString: string, dbName: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminConnectionString });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(dbName)} WITH (FORCE)`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The same server URL pointing at another database. */
export function withDatabase(connectionString: string, dbName: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${encodeURIComponent(dbName)}`;
  return url.toString();
}
