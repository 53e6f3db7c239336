import fs from 'node:fs';
import path from 'node:path';
import { MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE, readMigrations } from './migration-files';

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Prisma-style folder name `<yyyyMMddHHmmss>_<name>`, always after the last existing migration. */
export function nextMigrationName(migrationsDir: string, name: string, now = new Date()): string {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  if (!slug) throw new Error(`"${name}" is not a usable migration name (use letters, digits, _)`);
  const last = readMigrations(migrationsDir).at(-1)?.name.slice(0, 14);
  let stamp = timestamp(now);
  if (last && /^\d{14}$/.test(last) && stamp <= last) stamp = String(BigInt(last) + 1n);
  return `${stamp}_${slug}`;
}

/** Writes `<dir>/<folder>/migration.sql` (and migration_lock.toml if missing); returns the folder path. */
export function writeMigration(migrationsDir: string, folder: string, sql: string): string {
  const dir = path.join(migrationsDir, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), `${sql.trimEnd()}\n`);
  const lock = path.join(migrationsDir, MIGRATION_LOCK_FILE);
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, MIGRATION_LOCK_CONTENT);
  return dir;
}
