import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface DevPostgres {
  adminConnectionString: string;
  source: 'TEST_DATABASE_URL' | 'local' | 'embedded';
  /** Stops the embedded server if one was started; otherwise nothing. */
  release(): Promise<void>;
}

const LOCAL_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

async function answers(connectionString: string): Promise<string | null> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A PostgreSQL server for tests and tooling: `TEST_DATABASE_URL`, else the local one on
 * 127.0.0.1:5432, else an embedded PostgreSQL in a temporary folder (removed on release).
 * Throws, listing every reason, when none is usable.
 */
export async function acquireDevPostgres(options: { env?: NodeJS.ProcessEnv; localUrl?: string } = {}): Promise<DevPostgres> {
  const { env = process.env, localUrl = LOCAL_ADMIN_URL } = options;
  const noop = async () => undefined;
  if (env.TEST_DATABASE_URL) {
    const problem = await answers(env.TEST_DATABASE_URL);
    if (problem) throw new Error(`TEST_DATABASE_URL is set but does not answer: ${problem}`);
    return { adminConnectionString: env.TEST_DATABASE_URL, source: 'TEST_DATABASE_URL', release: noop };
  }
  const localProblem = await answers(localUrl);
  if (!localProblem) return { adminConnectionString: localUrl, source: 'local', release: noop };

  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-pg-')), randomBytes(3).toString('hex'));
  fs.chmodSync(path.dirname(dataDir), 0o755);
  try {
    const server = await startEmbeddedPostgres({ dataDir, persistent: false });
    const release = async () => {
      await server.stop();
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    };
    return { adminConnectionString: server.adminConnectionString, source: 'embedded', release };
  } catch (err) {
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    throw new Error(`no PostgreSQL available: ${localUrl} did not answer (${localProblem}); embedded PostgreSQL failed: ${(err as Error).message}`);
  }
}
