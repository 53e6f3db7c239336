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
    /** A passthrough admission (no lease) still open after this long is refunded and its concurrency slot released. */
    BILLING_ADMISSION_TTL_SECONDS: positive(3_600),
    BILLING_SWEEP_INTERVAL_MS: positive(60_000),
    /** A past month's bill is frozen on its first read at least this long after the month ended. */
    BILLING_BILL_FREEZE_GRACE_SECONDS: positive(3_600),
    /** Connections of the pool the hot statements (admission, settlement) run on. */
    BILLING_PG_POOL_MAX: positive(10),
    /** Statements that may wait for one of them; more are refused with UNAVAILABLE (HTTP 503, Retry-After). */
    BILLING_PG_MAX_WAITING: positive(4_000),
    /** How long admissions use the prices in memory; a SetPrice on this replica drops them at once. */
    BILLING_PRICE_CACHE_MS: positive(5_000),
  },
  (env) => ({
    limits: {
      rpm: { free: env.BILLING_RPM_FREE, pro: env.BILLING_RPM_PRO, enterprise: env.BILLING_RPM_ENTERPRISE },
      concurrency: { free: env.BILLING_CONCURRENCY_FREE, pro: env.BILLING_CONCURRENCY_PRO, enterprise: env.BILLING_CONCURRENCY_ENTERPRISE },
    },
    admissionTtlSeconds: env.BILLING_ADMISSION_TTL_SECONDS,
    sweepIntervalMs: env.BILLING_SWEEP_INTERVAL_MS,
    billFreezeGraceSeconds: env.BILLING_BILL_FREEZE_GRACE_SECONDS,
    pgPoolMax: env.BILLING_PG_POOL_MAX,
    pgMaxWaiting: env.BILLING_PG_MAX_WAITING,
    priceCacheMs: env.BILLING_PRICE_CACHE_MS,
  }),
);

export type BillingConfig = ReturnType<typeof loadBillingConfig>;
export type LevelLimits = BillingConfig['limits'];

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(billingConfigSchema, env);
}
