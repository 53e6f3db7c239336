import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { envBool, loadConfig, serviceConfigSchema } from '@tollgate/kit';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Every default here is listed in docs/tasks.md. */
export const tasksConfigSchema = serviceConfigSchema(
  'tasks',
  {
    /** Async tasks one replica runs at the same time; 0 = this replica runs no worker. */
    TASKS_WORKERS: z.coerce.number().int().min(0).default(4),
    /** A running task whose worker stopped heartbeating for this long is claimed again. */
    TASKS_LEASE_MS: positive(30_000),
    /** How often an idle worker looks for work without a `tasks.submitted` wake-up. */
    TASKS_POLL_MS: positive(2_000),
    /** Claims of one task before it is given up as 已报错. */
    TASKS_MAX_ATTEMPTS: positive(3),
    TASKS_SEED_DEMO_APPS: envBool(true),
    /** Upstream model call timeout when the app sets none. */
    PROVIDER_TIMEOUT_MS: positive(120_000),
    /** Lease owner name of this replica; defaults to host:pid:random. */
    TASKS_WORKER_ID: z.string().min(1).optional(),
  },
  (env) => ({
    workers: env.TASKS_WORKERS,
    leaseMs: env.TASKS_LEASE_MS,
    pollMs: env.TASKS_POLL_MS,
    maxAttempts: env.TASKS_MAX_ATTEMPTS,
    seedDemoApps: env.TASKS_SEED_DEMO_APPS,
    providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
    workerId: env.TASKS_WORKER_ID ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
  }),
);

export type TasksConfig = ReturnType<typeof loadTasksConfig>;

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(tasksConfigSchema, env);
}
