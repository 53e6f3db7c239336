import { join } from 'node:path';
import { startServiceRuntime, TASK_STATUS_SUBJECTS, type ServiceModule, type TaskStatusEvent } from '@tollgate/kit';
import { loadBillingConfig, type BillingConfig } from './config';
import { createBillingDb } from './db';
import { AdmissionRepo } from './repo/admission-repo';
import { LedgerRepo } from './repo/ledger-repo';
import { PriceRepo } from './repo/price-repo';
import { RateRepo } from './repo/rate-repo';
import { UsageRepo } from './repo/usage-repo';
import { billingBinding, type BillingParts } from './server';
import { settleFromEvent } from './usecases/settle-from-event';
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
        const parts: BillingParts = {
          usage: new UsageRepo(db),
          admissions: new AdmissionRepo(db),
          prices: new PriceRepo(db),
          ledger: new LedgerRepo(db),
          rates: new RateRepo(db),
          limits: config.limits,
          freezeGraceSeconds: config.billFreezeGraceSeconds,
        };
        const subscription = await bus.subscribe<TaskStatusEvent>({
          durable: config.settleConsumer,
          subjects: TASK_STATUS_SUBJECTS,
          handler: (m) => settleFromEvent({ ...parts, log }, m.data),
        });
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
            await subscription.stop();
            await sweeping;
          },
        };
      },
    }),
};
