import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const keysConfigSchema = serviceConfigSchema(
  'keys',
  {
    TOLLGATE_DATA_DIR: z.string().default('./.tollgate'),
    /** Token of the bootstrap admin; re-applied on every start when set. */
    TOLLGATE_ADMIN_TOKEN: z.string().min(16, 'TOLLGATE_ADMIN_TOKEN must be at least 16 characters').max(256).optional(),
  },
  (env) => ({ dataDir: env.TOLLGATE_DATA_DIR, adminToken: env.TOLLGATE_ADMIN_TOKEN }),
);

export type KeysConfig = ReturnType<typeof loadKeysConfig>;

export function loadKeysConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(keysConfigSchema, env);
}
