import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DbLogger } from './logger';
import { readMigrations, type MigrationFile } from './migration-files';

export interface ApplyMigrationsOptions {
  connectionString: string;
  /** A Prisma migrations folder: `<timestamp>_<name>/migration.sql` plus migration_lock.toml. */
  migrationsDir: string;
  logger?: DbLogger;
  /** How long to wait for another process holding the migration lock. Default 60 s. */
  lockTimeoutMs?: number;
}

export interface ApplyMigrationsResult {
  applied: string[];
  alreadyApplied: string[];
}

/** Prisma's own advisory lock key, so this runner and `prisma migrate deploy` exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Applies the committed migrations not yet recorded in `_prisma_migrations`, in name order,
 * each in its own transaction, under an advisory lock held on one connection for the whole run.
 * Refuses to run when an applied migration's file changed or a migration is recorded as failed.
 */
export async function applyMigrations(options: ApplyMigrationsOptions): Promise<ApplyMigrationsResult> {
  const { logger } = options;
  const migrations = readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString: options.connectionString });
  await client.connect();
  try {
    await acquireLock(client, options.lockTimeoutMs ?? 60_000);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at',
    );
    const done = checkHistory(migrations, rows, logger);
    const pending = migrations.filter((m) => !done.has(m.name));
    for (const migration of pending) await applyOne(client, migration, logger);
    if (pending.length === 0) logger?.info({ migrations: migrations.length }, 'database schema is up to date');
    return { applied: pending.map((m) => m.name), alreadyApplied: migrations.filter((m) => done.has(m.name)).map((m) => m.name) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function acquireLock(client: pg.Client, timeoutMs: number): Promise<void> {
  await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      throw new MigrationError(`Timed out after ${timeoutMs} ms waiting for the migration lock held by another process`);
    }
    throw err;
  } finally {
    await client.query('SET lock_timeout = 0');
  }
}

function checkHistory(migrations: MigrationFile[], rows: AppliedRow[], logger?: DbLogger): Set<string> {
  const failed = rows.filter((r) => r.finished_at === null).map((r) => r.migration_name);
  if (failed.length > 0) {
    throw new MigrationError(
      `Migration(s) ${failed.join(', ')} failed earlier and are recorded as unfinished in _prisma_migrations. ` +
        'Repair the database, then mark them rolled back (UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = ...).',
    );
  }
  const files = new Map(migrations.map((m) => [m.name, m]));
  const edited: string[] = [];
  for (const row of rows) {
    const file = files.get(row.migration_name);
    if (!file) logger?.warn({ migration: row.migration_name }, 'database has a migration this build does not know (newer release?)');
    else if (file.checksum !== row.checksum) edited.push(row.migration_name);
  }
  if (edited.length > 0) {
    throw new MigrationError(
      `Refusing to start: already-applied migration(s) ${edited.join(', ')} were modified after being applied (checksum mismatch). ` +
        'Restore the original migration.sql and put schema changes in a new migration (pnpm migrate:new <service> <name>).',
    );
  }
  return new Set(rows.map((r) => r.migration_name));
}

async function applyOne(client: pg.Client, migration: MigrationFile, logger?: DbLogger): Promise<void> {
  const startedAt = new Date();
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, started_at, finished_at, migration_name, logs, rolled_back_at, applied_steps_count)
       VALUES ($1, $2, $3, clock_timestamp(), $4, NULL, NULL, 1)`,
      [randomUUID(), migration.checksum, startedAt, migration.name],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    logger?.error({ migration: migration.name, err }, 'migration failed; rolled back');
    throw new MigrationError(`Migration ${migration.name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
  }
  logger?.info({ migration: migration.name, ms: Date.now() - startedAt.getTime() }, 'applied migration');
}
