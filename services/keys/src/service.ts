import { join } from 'node:path';
import { createGrpcClient, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { BillingClient } from '@tollgate/protos/billing';
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
        const billing = createGrpcClient(BillingClient, config.billingAddress);
        const quotas = { set: async (apiKeyId: number, accountId: number, quota: string, force: boolean) => void (await billing.setKeyQuota({ apiKeyId, accountId, quota, force })) };
        const ctx = createKeysContext(db, bus, log, quotas, { sessionTtlMs: config.sessionTtlMs });
        await bootstrapAdmin(ctx, { adminToken: config.adminToken, dataDir: config.dataDir });
        return { services: [keysServer(ctx, log)], onStop: async () => billing.close() };
      },
    }),
};
