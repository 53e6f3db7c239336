import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Every numeric default here is listed in docs/billing.md. */
export const billingConfigSchema = serviceConfigSchema(
  'billing',
  {
    BILLING_RPM_FREE: positive(60),
    BILLING_RPM_PRO: positive(600),
    BILLING_RPM_ENTERPRISE: positive(6_000),
    BILLING_CONCURRENCY_FREE: positive(5),
    BILLING_CONCURRENCY_PRO: positive(20),
    BILLING_CONCURRENCY_ENTERPRISE: positive(100),
    /** An admission still open after this long is refunded and its concurrency slot released. */
    BILLING_ADMISSION_TTL_SECONDS: positive(3_600),
    BILLING_SWEEP_INTERVAL_MS: positive(60_000),
    /** A past month's bill is frozen on its first read at least this long after the month ended. */
    BILLING_BILL_FREEZE_GRACE_SECONDS: positive(3_600),
    /** Durable consumer name of the task-status subscription (shared by every billing replica). */
    BILLING_SETTLE_CONSUMER: z.string().min(1).default('billing-settlement'),
  },
  (env) => ({
    limits: {
      rpm: { free: env.BILLING_RPM_FREE, pro: env.BILLING_RPM_PRO, enterprise: env.BILLING_RPM_ENTERPRISE },
      concurrency: { free: env.BILLING_CONCURRENCY_FREE, pro: env.BILLING_CONCURRENCY_PRO, enterprise: env.BILLING_CONCURRENCY_ENTERPRISE },
    },
    admissionTtlSeconds: env.BILLING_ADMISSION_TTL_SECONDS,
    sweepIntervalMs: env.BILLING_SWEEP_INTERVAL_MS,
    billFreezeGraceSeconds: env.BILLING_BILL_FREEZE_GRACE_SECONDS,
    settleConsumer: env.BILLING_SETTLE_CONSUMER,
  }),
);

export type BillingConfig = ReturnType<typeof loadBillingConfig>;
export type LevelLimits = BillingConfig['limits'];

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(billingConfigSchema, env);
}
