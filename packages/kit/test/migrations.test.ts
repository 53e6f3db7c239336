import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyMigrations, MigrationError } from '../src/db/migrate';
import { readMigrations } from '../src/db/migration-files';
import { diffDatabaseToSchema } from '../src/db/schema-drift';
import { openSchemaEngine } from '../src/db/schema-engine';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres';
import { createTestDatabase, dropTestDatabase, migrationsDirOf, releaseTestPostgres } from '../src/testing/postgres';

const SERVICES = ['keys', 'billing', 'tasks', 'docs', 'search'];
const schemaOf = (service: string) => fs.readFileSync(path.join(migrationsDirOf(service), '..', 'schema.prisma'), 'utf8');

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const databases: string[] = [];
async function freshDatabase(label: string): Promise<string> {
  const url = await createTestDatabase(label);
  if (!url) throw new Error('PostgreSQL is required for this test (see the warning above)');
  databases.push(url);
  return url;
}

afterAll(async () => {
  await Promise.all(databases.map(dropTestDatabase));
  await releaseTestPostgres();
});

describe.each(SERVICES)('committed migrations of %s', (service) => {
  it('apply concurrently under the lock, once each, and match schema.prisma', async () => {
    const url = await freshDatabase(service);
    const migrationsDir = migrationsDirOf(service);
    const names = readMigrations(migrationsDir).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);

    const [a, b] = await Promise.all([applyMigrations({ connectionString: url, migrationsDir }), applyMigrations({ connectionString: url, migrationsDir })]);
    expect([...a.applied, ...b.applied].sort()).toEqual(names);
    expect([...a.alreadyApplied, ...b.alreadyApplied].sort()).toEqual(names);

    const rows = await query<{ migration_name: string; n: number }>(
      url,
      'SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL GROUP BY 1 ORDER BY 1',
    );
    expect(rows).toEqual(names.map((migration_name) => ({ migration_name, n: 1 })));
    expect((await applyMigrations({ connectionString: url, migrationsDir })).applied).toEqual([]);

    const drift = await diffDatabaseToSchema(url, schemaOf(service));
    if (drift) throw new Error(`services/${service}/prisma/schema.prisma differs from its migrations; run pnpm migrate:new ${service} <name>. Missing SQL:\n${drift}`);

    const engine = await openSchemaEngine(url);
    try {
      const status = await engine.diagnoseMigrationHistory(migrationsDir);
      expect(status).toMatchObject({ history: null, editedMigrationNames: [], failedMigrationNames: [], hasMigrationsTable: true });
    } finally {
      await engine.close();
    }
  });
});

describe('drift check', () => {
  it('reports the SQL when schema.prisma has changes its migrations lack', async () => {
    const url = await freshDatabase('drift');
    await applyMigrations({ connectionString: url, migrationsDir: migrationsDirOf('search') });
    const changed = schemaOf('search').replace('  latencyMs   Int      @map("latency_ms")', '  latencyMs   Int      @map("latency_ms")\n  userAgent   String?  @map("user_agent")');
    expect(changed).not.toEqual(schemaOf('search'));
    expect(await diffDatabaseToSchema(url, changed)).toContain('ADD COLUMN     "user_agent" TEXT');
  });
});

describe('applyMigrations safety', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-migrations-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, sql: string) => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  };

  it('refuses to start when an applied migration was edited', async () => {
    const url = await freshDatabase('checksum');
    write('20260101000000_init', 'CREATE TABLE t (id int);\n');
    await applyMigrations({ connectionString: url, migrationsDir: dir });
    write('20260101000000_init', 'CREATE TABLE t (id bigint);\n');
    write('20260102000000_more', 'CREATE TABLE u (id int);\n');
    const run = applyMigrations({ connectionString: url, migrationsDir: dir });
    await expect(run).rejects.toThrow(MigrationError);
    await expect(run).rejects.toThrow(/20260101000000_init.*checksum mismatch/);
    expect(await query(url, "SELECT to_regclass('u') AS u")).toEqual([{ u: null }]);
  });

  it('rolls back a failing migration entirely and records nothing for it', async () => {
    const url = await freshDatabase('failing');
    write('20260101000000_ok', 'CREATE TABLE a (id int);\n');
    write('20260102000000_bad', 'CREATE TABLE b (id int);\nSELECT no_such_function();\n');
    await expect(applyMigrations({ connectionString: url, migrationsDir: dir })).rejects.toThrow(/20260102000000_bad failed/);
    expect(await query(url, "SELECT to_regclass('a')::text AS a, to_regclass('b')::text AS b")).toEqual([{ a: 'a', b: null }]);
    expect(await query(url, 'SELECT migration_name FROM "_prisma_migrations"')).toEqual([{ migration_name: '20260101000000_ok' }]);
  });
});

describe('embedded PostgreSQL', () => {
  it('keeps its data across stop and restart', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-embedded-'));
    fs.chmodSync(root, 0o755);
    const dataDir = path.join(root, 'pg');
    try {
      const first = await startEmbeddedPostgres({ dataDir });
      try {
        await query(first.adminConnectionString, 'CREATE TABLE kept (v text); INSERT INTO kept VALUES (\'still here\')');
      } finally {
        await first.stop();
      }
      const second = await startEmbeddedPostgres({ dataDir });
      try {
        expect(await query(second.adminConnectionString, 'SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  it('re-plans a statement prepared while its table was empty once the table has grown, within seconds', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-embedded-'));
    fs.chmodSync(root, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg') });
    const client = new pg.Client({ connectionString: server.adminConnectionString });
    try {
      await client.connect();
      await client.query('CREATE TABLE grows (id text PRIMARY KEY, v int)');
      const batch = `'{${Array.from({ length: 20 }, (_, i) => `k${i}`)}}', '{${Array.from({ length: 20 }, (_, i) => i)}}'`;
      const plan = async () => {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE grows_by_id(${batch})`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      // As the services' hot pools do: a named statement, planned generically after its fifth run,
      // in the shape of their batch statements (a settlement, say): parameter arrays joined to the table.
      await client.query('PREPARE grows_by_id(text[], int[]) AS UPDATE grows g SET v = i.v FROM unnest($1::text[], $2::int[]) AS i(id, v) WHERE g.id = i.id');
      for (let i = 0; i < 6; i++) await client.query(`EXECUTE grows_by_id(${batch})`);
      expect(await plan()).toContain('Seq Scan on grows');
      await client.query("INSERT INTO grows SELECT 'k' || g, g FROM generate_series(1, 20000) g");
      const started = Date.now();
      let latest = await plan();
      while (!latest.includes('Index') && Date.now() - started < 25_000) {
        await new Promise((r) => setTimeout(r, 500));
        latest = await plan();
      }
      // A plan made for an empty table scans all 20,000 rows on every call until autovacuum's ANALYZE replaces it.
      expect(latest).toMatch(/Index (Only )?Scan using grows_pkey/);
    } finally {
      await client.end().catch(() => undefined);
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
  it('answers only to its own password (mode 0600 file), never to postgres/postgres, and replaces the old default on an existing cluster', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-embedded-'));
    fs.chmodSync(root, 0o755);
    const dataDir = path.join(root, 'pg');
    const legacyUrl = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
    const refused = (url: string) => query(url, 'SELECT 1').then(() => 'accepted', (e: { code?: string }) => e.code);
    try {
      const first = await startEmbeddedPostgres({ dataDir });
      const file = path.join(root, 'pg-password');
      try {
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        const password = fs.readFileSync(file, 'utf8').trim();
        expect(password).toMatch(/^[0-9a-f]{48}$/);
        expect(first.adminConnectionString).toContain(password);
        expect(await refused(legacyUrl(first.port))).toBe('28P01');
        // A cluster from before: it still has the old default, and no password file.
        await query(first.adminConnectionString, "ALTER ROLE postgres PASSWORD 'postgres'");
      } finally {
        await first.stop();
      }
      fs.rmSync(file);
      const second = await startEmbeddedPostgres({ dataDir });
      try {
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        expect(await query(second.adminConnectionString, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
        expect(await refused(legacyUrl(second.port))).toBe('28P01');
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
