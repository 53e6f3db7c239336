import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadBillingConfig, type BillingConfig } from './config';
import { createBillingDb } from './db';

export const billingService: ServiceModule<BillingConfig> = {
  name: 'billing',
  loadConfig: loadBillingConfig,
  start: (config, { log }) =>
    startServiceRuntime({
      name: 'billing',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createBillingDb,
      build: () => ({ services: [] }),
    }),
};
