import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadSearchConfig, type SearchConfig } from './config';
import { createSearchDb } from './db';

export const searchService: ServiceModule<SearchConfig> = {
  name: 'search',
  loadConfig: loadSearchConfig,
  start: (config, { log }) =>
    startServiceRuntime({
      name: 'search',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createSearchDb,
      build: () => ({ services: [] }),
    }),
};
