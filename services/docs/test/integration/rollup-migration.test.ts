import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { applyMigrations } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, migrationsDirOf, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';

const MIGRATION = '20261122160000_request_rollups_all_statuses';

// Rollups recorded before the all-statuses row existed are carried over by the migration.
describe('migration: request rollups get one all-statuses row with the merged histogram', () => {
  let url: string | null;
  let before: string;
  afterAll(async () => {
    if (before) rmSync(before, { recursive: true, force: true });
    if (url) await dropTestDatabase(url);
    await releaseTestPostgres();
  });

  it('sums counts and histograms of the status classes into status_class 0 and keeps only counts on the others', async () => {
    url = await createTestDatabase('rollup_migration');
    if (!url) throw new Error('PostgreSQL is required for this test');
    const all = migrationsDirOf('docs');
    before = mkdtempSync(join(tmpdir(), 'docs-migrations-'));
    for (const entry of readdirSync(all)) if (entry < MIGRATION || entry === 'migration_lock.toml') cpSync(join(all, entry), join(before, entry), { recursive: true });
    await applyMigrations({ connectionString: url, migrationsDir: before });

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`INSERT INTO request_rollups (period_kind, account_id, period_start, "group", status_class, count, latency) VALUES
        ('d', 0, '2026-11-01', 'documents', 2, 3, '{0,1,2}'),
        ('d', 0, '2026-11-01', 'documents', 5, 2, '{0,0,0,0,2}'),
        ('d', 0, '2026-11-01', 'search', 4, 1, '{1}'),
        ('h', 7, '2026-11-01 10:00', 'documents', 2, 4, NULL)`);
      const result = await applyMigrations({ connectionString: url, migrationsDir: all });
      expect(result.applied).toContain(MIGRATION);
      const { rows } = await c.query<{ period_kind: string; account_id: number; group: string; status_class: number; count: number; latency: number[] | null }>(
        `SELECT period_kind, account_id, "group", status_class, count, latency FROM request_rollups ORDER BY period_kind, account_id, "group", status_class`,
      );
      expect(rows).toEqual([
        { period_kind: 'd', account_id: 0, group: 'documents', status_class: 0, count: 5, latency: [0, 1, 2, 0, 2] },
        { period_kind: 'd', account_id: 0, group: 'documents', status_class: 2, count: 3, latency: [] },
        { period_kind: 'd', account_id: 0, group: 'documents', status_class: 5, count: 2, latency: [] },
        { period_kind: 'd', account_id: 0, group: 'search', status_class: 0, count: 1, latency: [1] },
        { period_kind: 'd', account_id: 0, group: 'search', status_class: 4, count: 1, latency: [] },
        { period_kind: 'h', account_id: 7, group: 'documents', status_class: 0, count: 4, latency: [] },
        { period_kind: 'h', account_id: 7, group: 'documents', status_class: 2, count: 4, latency: null },
      ]);
    } finally {
      await c.end();
    }
  });
});
