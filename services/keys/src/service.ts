import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadKeysConfig, type KeysConfig } from './config';
import { createKeysContext } from './context';
import { createKeysDb } from './db';
import { keysServer } from './server';
import { bootstrapAdmin } from './usecases/bootstrap-admin';

export const keysService: ServiceModule<KeysConfig> = {
  name: 'keys',
  loadConfig: loadKeysConfig,
  start: (config, { bus, log }) =>
    startServiceRuntime({
      name: 'keys',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createKeysDb,
      build: async (db) => {
        const ctx = createKeysContext(db, bus, log, { sessionTtlMs: config.sessionTtlMs });
        await bootstrapAdmin(ctx, { adminToken: config.adminToken, dataDir: config.dataDir });
        return { services: [keysServer(ctx, log)] };
      },
    }),
};
