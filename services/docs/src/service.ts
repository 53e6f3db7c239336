import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadDocsConfig, type DocsConfig } from './config';
import { createDocsDb } from './db';

export const docsService: ServiceModule<DocsConfig> = {
  name: 'docs',
  loadConfig: loadDocsConfig,
  start: (config, { log }) =>
    startServiceRuntime({
      name: 'docs',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createDocsDb,
      build: () => ({ services: [] }),
    }),
};
