import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const keysConfigSchema = serviceConfigSchema(
  'keys',
  {
    TOLLGATE_DATA_DIR: z.string().default('./.tollgate'),
    /** Token of the bootstrap admin; re-applied on every start when set. */
    TOLLGATE_ADMIN_TOKEN: z.string().min(16, 'TOLLGATE_ADMIN_TOKEN must be at least 16 characters').max(256).optional(),
    /** How long a console session lasts (server-side expiry). */
    SESSION_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(12),
    /** Billing, which holds a key's quota against the admissions under way when it changes. */
    BILLING_GRPC_ADDR: z.string().min(1).default('127.0.0.1:50052'),
  },
  (env) => ({ dataDir: env.TOLLGATE_DATA_DIR, adminToken: env.TOLLGATE_ADMIN_TOKEN, sessionTtlMs: env.SESSION_TTL_HOURS * 3600_000, billingAddress: env.BILLING_GRPC_ADDR }),
);

export type KeysConfig = ReturnType<typeof loadKeysConfig>;

export function loadKeysConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(keysConfigSchema, env);
}
