import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase, withDatabase } from './ensure-database';
import { applyMigrations } from './migrate';
import { openSchemaEngine } from './schema-engine';

export interface DiffMigrationsOptions {
  /** A server where a scratch ("shadow") database may be created and dropped. */
  adminConnectionString: string;
  migrationsDir: string;
  /** The schema.prisma text to compare against. */
  datamodel: string;
}

/**
 * SQL that takes a database built by the committed migrations to `datamodel`; '' if none.
 * Works on a throwaway shadow database it creates and drops.
 */
export async function diffMigrationsToSchema(options: DiffMigrationsOptions): Promise<string> {
  const shadowName = `prisma_shadow_${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`;
  const shadowUrl = withDatabase(options.adminConnectionString, shadowName);
  await ensureDatabase(options.adminConnectionString, shadowName);
  try {
    await applyMigrations({ connectionString: shadowUrl, migrationsDir: options.migrationsDir });
    return await diffDatabaseToSchema(shadowUrl, options.datamodel);
  } finally {
    await dropDatabase(options.adminConnectionString, shadowName);
  }
}

/** SQL that takes the live database at `connectionString` to `datamodel`; '' if they agree. */
export async function diffDatabaseToSchema(connectionString: string, datamodel: string): Promise<string> {
  const engine = await openSchemaEngine(connectionString);
  try {
    return await engine.diffDatabaseToDatamodel(datamodel);
  } finally {
    await engine.close();
  }
}
