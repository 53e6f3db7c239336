import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { silentLogger } from '@tollgate/kit';
import { loadSystemConfig, startEmbeddedSystem } from '@tollgate/system';

// The zero-setup default: no DATABASE_URL_* at all, so an embedded PostgreSQL is started in the
// data folder; a second start must find the same databases and data.
describe('embedded default across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-restart-'));
  chmodSync(dataDir, 0o755); // as root, the embedded server runs as the `postgres` user and must reach the folder
  const env = { TOLLGATE_DATA_DIR: dataDir, PORT: '0', HTTPS_PORT: '0', TOLLGATE_ADMIN_TOKEN: 'restart-test-admin-token-0123456789' };
  const noDatabaseUrls = Object.fromEntries(['KEYS', 'BILLING', 'TASKS', 'DOCS', 'SEARCH'].map((s) => [`DATABASE_URL_${s}`, undefined]));
  const saved = { ...process.env };

  beforeAll(() => {
    for (const key of Object.keys(noDatabaseUrls)) delete process.env[key];
    delete process.env.DATABASE_URL;
    delete process.env.NATS_URL;
  });
  afterAll(() => {
    process.env = saved;
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function migrationsOf(url: string): Promise<Array<{ migration_name: string; started_at: Date }>> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT migration_name, started_at FROM _prisma_migrations ORDER BY migration_name');
      return rows;
    } finally {
      await client.end();
    }
  }

  it('keeps its databases and does not migrate twice', async () => {
    const start = () => startEmbeddedSystem({ config: loadSystemConfig(env), log: silentLogger(), env: { ...env, ...noDatabaseUrls } });

    const first = await start();
    let before: Awaited<ReturnType<typeof migrationsOf>>;
    try {
      expect(first.databaseUrls.keys).toContain('tollgate_keys');
      expect((await fetch(`${first.gateway.httpUrl}/readyz`)).status).toBe(200);
      before = await migrationsOf(first.databaseUrls.keys);
      expect(before.length).toBeGreaterThan(0);
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      expect((await fetch(`${second.gateway.httpUrl}/readyz`)).status).toBe(200);
      const after = await migrationsOf(second.databaseUrls.keys);
      expect(after).toEqual(before);
    } finally {
      await second.stop();
    }
  });
});
