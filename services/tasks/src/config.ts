import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { envBool, loadConfig, parseSecretKey, serviceConfigSchema } from '@tollgate/kit';
import { webhookEnvShape, webhookSettingsOf } from './webhooks/config';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const KEY_FORMAT = 'must be a 32-byte key: 64 hex digits or base64 (e.g. `openssl rand -base64 32`)';
const secretKey = z.string().refine((v) => parseSecretKey(v) !== null, KEY_FORMAT);
const previousKeys = z.string().refine((v) => v.split(',').filter((k) => k.trim()).every((k) => parseSecretKey(k) !== null), `comma-separated keys; each ${KEY_FORMAT}`);

/** Every default here is listed in docs/tasks.md. */
export const tasksConfigSchema = serviceConfigSchema(
  'tasks',
  {
    /** Async tasks one replica runs at the same time; 0 = this replica runs no worker. */
    TASKS_WORKERS: z.coerce.number().int().min(0).default(16),
    /** How long a woken worker waits before it claims, so that submissions arriving meanwhile share one claim statement. */
    TASKS_CLAIM_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(10),
    /** A running task whose worker stopped heartbeating for this long is claimed again. */
    TASKS_LEASE_MS: positive(30_000),
    /** How often an idle worker looks for work without a `tasks.submitted` wake-up. */
    TASKS_POLL_MS: positive(2_000),
    /** Claims of one task before it is given up as 已报错. */
    TASKS_MAX_ATTEMPTS: positive(3),
    TASKS_SEED_DEMO_APPS: envBool(true),
    /** Upstream model call timeout when the app sets none. */
    PROVIDER_TIMEOUT_MS: positive(120_000),
    /** Billing, which admits and settles every execution. */
    BILLING_GRPC_ADDR: z.string().min(1).default('127.0.0.1:50052'),
    /** Lease of an admission at billing; renewed at a third of it while this replica works on the execution. */
    TASKS_ADMISSION_LEASE_SECONDS: positive(60),
    /** How long a settlement waits for an admission to ride along with before it is sent alone (0: at once). */
    TASKS_SETTLE_LINGER_MS: z.coerce.number().int().min(0).max(1_000).default(10),
    /** How often admissions whose lease ran out are settled by their task's outcome. */
    TASKS_RECONCILE_INTERVAL_MS: positive(30_000),
    /** Executions (sync, streamed, submissions) one replica accepts at once; more get UNAVAILABLE (503, Retry-After). */
    TASKS_MAX_IN_FLIGHT: positive(512),
    /** Executions being checked and admitted (or submitted) at once; more wait up to TASKS_ADMIT_WAIT_MS, then 503. */
    TASKS_MAX_ADMITTING: positive(32),
    TASKS_ADMIT_WAIT_MS: positive(2_000),
    /** Connections of the pool the hot statements run on, and statements that may wait for one (more: 503). */
    TASKS_PG_POOL_MAX: positive(10),
    TASKS_PG_MAX_WAITING: positive(4_000),
    /** How long an app is served from memory when no change was announced. */
    TASKS_APP_CACHE_MS: positive(30_000),
    /** Lease owner name of this replica; defaults to host:pid:random. */
    TASKS_WORKER_ID: z.string().min(1).optional(),
    /** Seals apps' upstream api_keys (AES-256-GCM); unset: `<TOLLGATE_DATA_DIR>/secret-key`, made on first start. */
    TOLLGATE_SECRET_KEY: secretKey.optional(),
    /** Keys used before a rotation: values sealed with them are still read, and sealed again with the current key at start. */
    TOLLGATE_SECRET_KEY_PREVIOUS: previousKeys.optional(),
    TOLLGATE_DATA_DIR: z.string().default('./.tollgate'),
    ...webhookEnvShape,
  },
  (env) => ({
    webhooks: webhookSettingsOf(env, env.TASKS_WORKER_ID ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`),
    workers: env.TASKS_WORKERS,
    claimLingerMs: env.TASKS_CLAIM_LINGER_MS,
    leaseMs: env.TASKS_LEASE_MS,
    pollMs: env.TASKS_POLL_MS,
    maxAttempts: env.TASKS_MAX_ATTEMPTS,
    seedDemoApps: env.TASKS_SEED_DEMO_APPS,
    providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
    billingAddress: env.BILLING_GRPC_ADDR,
    admissionLeaseSeconds: env.TASKS_ADMISSION_LEASE_SECONDS,
    settleLingerMs: env.TASKS_SETTLE_LINGER_MS,
    reconcileIntervalMs: env.TASKS_RECONCILE_INTERVAL_MS,
    maxInFlight: env.TASKS_MAX_IN_FLIGHT,
    maxAdmitting: env.TASKS_MAX_ADMITTING,
    admitWaitMs: env.TASKS_ADMIT_WAIT_MS,
    pgPoolMax: env.TASKS_PG_POOL_MAX,
    pgMaxWaiting: env.TASKS_PG_MAX_WAITING,
    appCacheMs: env.TASKS_APP_CACHE_MS,
    secretKey: env.TOLLGATE_SECRET_KEY ? parseSecretKey(env.TOLLGATE_SECRET_KEY)! : undefined,
    previousSecretKeys: (env.TOLLGATE_SECRET_KEY_PREVIOUS ?? '').split(',').filter((k) => k.trim()).map((k) => parseSecretKey(k)!),
    dataDir: env.TOLLGATE_DATA_DIR,
    workerId: env.TASKS_WORKER_ID ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
  }),
);

export type TasksConfig = ReturnType<typeof loadTasksConfig>;

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(tasksConfigSchema, env);
}
