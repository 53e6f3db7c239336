/**
 * pnpm migrate:new <service> <name>
 * Diffs the state built by services/<service>/prisma/migrations against services/<service>/prisma/schema.prisma
 * (WASM schema engine, scratch database on TEST_DATABASE_URL / 127.0.0.1:5432 / an embedded PostgreSQL) and
 * writes the next migration folder; prints "no changes" and writes nothing when they already agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { acquireDevPostgres } from '../packages/kit/src/db/dev-postgres';
import { nextMigrationName, writeMigration } from '../packages/kit/src/db/new-migration';
import { diffMigrationsToSchema } from '../packages/kit/src/db/schema-drift';

const root = path.resolve(__dirname, '..');

async function main(): Promise<number> {
  const [service, name] = process.argv.slice(2);
  if (!service || !name) {
    console.error('usage: pnpm migrate:new <service> <migration_name>   e.g. pnpm migrate:new keys add_key_labels');
    return 2;
  }
  const prismaDir = path.join(root, 'services', service, 'prisma');
  const schemaPath = path.join(prismaDir, 'schema.prisma');
  if (!fs.existsSync(schemaPath)) {
    console.error(`no schema at ${path.relative(root, schemaPath)}`);
    return 2;
  }
  const migrationsDir = path.join(prismaDir, 'migrations');
  const folder = nextMigrationName(migrationsDir, name);
  const datamodel = fs.readFileSync(schemaPath, 'utf8');

  const server = await acquireDevPostgres();
  try {
    const sql = await diffMigrationsToSchema({ adminConnectionString: server.adminConnectionString, migrationsDir, datamodel });
    if (!sql) {
      console.log(`no changes: services/${service}/prisma/migrations already matches schema.prisma`);
      return 0;
    }
    const dir = writeMigration(migrationsDir, folder, sql);
    const leftover = await diffMigrationsToSchema({ adminConnectionString: server.adminConnectionString, migrationsDir, datamodel });
    if (leftover) {
      fs.rmSync(dir, { recursive: true, force: true });
      console.error(`the generated migration does not reach schema.prisma (removed it); remaining difference:\n${leftover}`);
      return 1;
    }
    console.log(`created ${path.relative(root, dir)}/migration.sql:\n\n${sql}\n`);
    if (/warnings?:|data loss|will be lost/i.test(sql)) console.warn('!! Review the warnings above: this migration may lose data.');
    return 0;
  } finally {
    await server.release();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error('migrate:new failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
