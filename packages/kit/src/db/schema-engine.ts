import fs from 'node:fs';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import type * as Wasm from '@prisma/schema-engine-wasm';
import { charAsTextPool } from './char-as-text-pool';
import { MIGRATION_LOCK_FILE, readMigrations } from './migration-files';

type WasmExports = Record<string, unknown>;
type WasmModule = typeof Wasm & { __wbg_set_wasm(exports: WasmExports): void };
/** The WebAssembly global (not declared by lib ES2023 + @types/node 20). */
const { WebAssembly: WA } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Instance: new (module: object, imports: Record<string, object>) => { exports: WasmExports };
  };
};
type BindFactory = (factory: PrismaPg) => object;

let loaded: { engine: WasmModule; bind: BindFactory } | undefined;

/** ESM-only package: loads through Node's require(esm), tsx, or jest's transform (see jest.config.js). */
function loadWasmEngine(): { engine: WasmModule; bind: BindFactory } {
  if (loaded) return loaded;
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const engine = require(bgPath) as WasmModule;
  const bytes = fs.readFileSync(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'));
  const instance = new WA.Instance(new WA.Module(bytes), { './schema_engine_bg.js': engine });
  engine.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  const adapterDir = path.dirname(require.resolve('@prisma/adapter-pg'));
  const utils = require(require.resolve('@prisma/driver-adapter-utils', { paths: [adapterDir] })) as {
    bindMigrationAwareSqlAdapterFactory: BindFactory;
  };
  loaded = { engine, bind: utils.bindMigrationAwareSqlAdapterFactory };
  return loaded;
}

export interface SchemaEngineSession {
  /** SQL that would move the database to `datamodel`; '' when they already agree. */
  diffDatabaseToDatamodel(datamodel: string): Promise<string>;
  /** Prisma's own view (as `prisma migrate status` reports it) of the database against a migrations folder. */
  diagnoseMigrationHistory(migrationsDir: string): Promise<Wasm.DiagnoseMigrationHistoryOutput>;
  close(): Promise<void>;
}

function migrationList(migrationsDir: string): Wasm.MigrationList {
  const lockPath = path.join(migrationsDir, MIGRATION_LOCK_FILE);
  return {
    baseDir: migrationsDir,
    lockfile: { path: MIGRATION_LOCK_FILE, content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: readMigrations(migrationsDir).map((m) => ({
      path: m.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.sql } },
    })),
  };
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** Opens the WASM schema engine on one PostgreSQL database through @prisma/adapter-pg. */
export async function openSchemaEngine(connectionString: string): Promise<SchemaEngineSession> {
  const { engine: wasm, bind } = loadWasmEngine();
  const pool: pg.Pool = charAsTextPool(connectionString);
  const factory = bind(new PrismaPg(pool));
  let engine: Wasm.SchemaEngine;
  try {
    engine = await wasm.SchemaEngine.new({ datamodels: undefined }, () => undefined, factory);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    async diffDatabaseToDatamodel(datamodel) {
      const result = await engine.diff({
        from: { tag: 'schemaDatasource', files: [{ path: 'schema.prisma', content: datamodel }], configDir: process.cwd() },
        to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: datamodel }] },
        script: true,
        exitCode: true,
        filters: NO_FILTERS,
      });
      return result.exitCode === 2 ? (result.stdout ?? '').trim() : '';
    },
    diagnoseMigrationHistory(migrationsDir) {
      return engine.diagnoseMigrationHistory({ migrationsList: migrationList(migrationsDir), optInToShadowDatabase: false, filters: NO_FILTERS });
    },
    async close() {
      engine.free();
      await pool.end();
    },
  };
}
