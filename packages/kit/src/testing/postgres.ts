import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { acquireDevPostgres, type DevPostgres } from '../db/dev-postgres';
import { dropDatabase, ensureDatabase, withDatabase } from '../db/ensure-database';
import { applyMigrations } from '../db/migrate';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

let server: Promise<DevPostgres | null> | undefined;
let users = 0;

function warnLoudly(reason: string): void {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! NO POSTGRESQL: INTEGRATION TESTS THAT NEED A DATABASE ARE BEING SKIPPED\n!! ${reason}\n!! Set TEST_DATABASE_URL or start PostgreSQL on 127.0.0.1:5432.\n${bar}\n`);
}

/** The process's test server (found or started once), or null when none can be had. */
export function testPostgres(): Promise<DevPostgres | null> {
  server ??= acquireDevPostgres().catch((err: Error) => {
    warnLoudly(err.message);
    return null;
  });
  return server;
}

/** Stops an embedded test server started by this process. */
export async function releaseTestPostgres(): Promise<void> {
  const current = await server;
  server = undefined;
  await current?.release();
}

export function migrationsDirOf(service: string): string {
  return path.join(REPO_ROOT, 'services', service, 'prisma', 'migrations');
}

/** A fresh, randomly named database; returns its URL, or null (after a loud warning) without PostgreSQL. */
export async function createTestDatabase(label = 'test'): Promise<string | null> {
  const pg = await testPostgres();
  if (!pg) return null;
  const safeLabel = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 20);
  const name = `t_${safeLabel}_${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(pg.adminConnectionString, name);
  return withDatabase(pg.adminConnectionString, name);
}

/** Drops a database made by createTestDatabase, closing any connections still open to it. */
export async function dropTestDatabase(connectionString: string): Promise<void> {
  const pg = await testPostgres();
  if (!pg) return;
  const name = decodeURIComponent(new URL(connectionString).pathname.slice(1));
  await dropDatabase(pg.adminConnectionString, name);
}

/** A fresh database with `services/<service>/prisma/migrations` applied; null without PostgreSQL. */
export async function migratedTestDatabase(service: string): Promise<string | null> {
  const url = await createTestDatabase(service);
  if (!url) return null;
  try {
    await applyMigrations({ connectionString: url, migrationsDir: migrationsDirOf(service) });
  } catch (err) {
    await dropTestDatabase(url);
    throw err;
  }
  return url;
}

export interface TestDatabaseHandle {
  /** The database URL; throws if read while no database is available. */
  readonly url: string;
  /** False when no PostgreSQL could be found: tests should return early. */
  readonly available: boolean;
}

/**
 * Jest hooks: a fresh database before all tests of the file (migrated when `service` is given),
 * dropped after them.
 */
export function useTestDatabase(service?: string): TestDatabaseHandle {
  let url: string | null = null;
  beforeAll(async () => {
    users += 1;
    url = service ? await migratedTestDatabase(service) : await createTestDatabase();
  });
  afterAll(async () => {
    if (url) await dropTestDatabase(url);
    users -= 1;
    if (users === 0) await releaseTestPostgres();
  });
  return {
    get url() {
      if (!url) throw new Error('no test database (PostgreSQL unavailable; check `available` first)');
      return url;
    },
    get available() {
      return url !== null;
    },
  };
}
