import { join } from 'node:path';
import { HotPool, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadBillingConfig, type BillingConfig } from './config';
import { createBillingDb } from './db';
import { AdmissionRepo } from './repo/admission-repo';
import { LedgerRepo } from './repo/ledger-repo';
import { PriceRepo } from './repo/price-repo';
import { RateRepo } from './repo/rate-repo';
import { UsageRepo } from './repo/usage-repo';
import { billingBinding, type BillingParts } from './server';
import { PriceCache } from './repo/price-cache';
import { expireAdmissions } from './usecases/expire-admissions';

export const billingService: ServiceModule<BillingConfig> = {
  name: 'billing',
  loadConfig: loadBillingConfig,
  start: (config, { bus, log }) =>
    startServiceRuntime({
      name: 'billing',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createBillingDb,
      build: async (db) => {
        const hot = new HotPool(config.databaseUrl, { max: config.pgPoolMax, maxWaiting: config.pgMaxWaiting });
        const reads = new HotPool(config.databaseUrl, { max: 4, maxWaiting: config.pgMaxWaiting });
        const parts: BillingParts = {
          usage: new UsageRepo(db, hot, reads),
          admissions: new AdmissionRepo(db, hot),
          prices: new PriceCache(new PriceRepo(db), config.priceCacheMs),
          ledger: new LedgerRepo(db),
          rates: new RateRepo(db, hot),
          limits: config.limits,
          freezeGraceSeconds: config.billFreezeGraceSeconds,
        };
        let sweeping = Promise.resolve();
        const sweeper = setInterval(() => {
          sweeping = expireAdmissions({ ...parts, log }, config.admissionTtlSeconds)
            .then(() => undefined)
            .catch((err: unknown) => log.error({ err }, 'billing housekeeping failed'));
        }, config.sweepIntervalMs);
        sweeper.unref();
        return {
          services: [billingBinding(parts, log)],
          onStop: async () => {
            clearInterval(sweeper);
            await sweeping;
            await hot.end();
            await reads.end();
          },
        };
      },
    }),
};
