import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadKeysConfig, type KeysConfig } from './config';
import { createKeysDb } from './db';

export const keysService: ServiceModule<KeysConfig> = {
  name: 'keys',
  loadConfig: loadKeysConfig,
  start: (config, { log }) =>
    startServiceRuntime({
      name: 'keys',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createKeysDb,
      build: () => ({ services: [] }),
    }),
};
