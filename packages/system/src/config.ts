import { z } from 'zod';
import { envPort, loadConfig, logLevel } from '@tollgate/kit';

export const systemConfigSchema = z.object({
  PORT: envPort(8080),
  HTTPS_PORT: envPort(8443),
  TOLLGATE_DATA_DIR: z.string().default('./.tollgate'),
  /** Port of the embedded PostgreSQL; 0 picks a free one. */
  EMBEDDED_PG_PORT: envPort(0),
  NATS_URL: z.string().optional(),
  NATS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
  LOG_LEVEL: logLevel,
  /** on: the content services (docs, search) in a worker thread, the execution path on the main thread; off: all on one thread. */
  TOLLGATE_THREADS: z.enum(['on', 'off']).default('on'),
});

export type SystemConfig = Readonly<z.infer<typeof systemConfigSchema>>;

export function loadSystemConfig(env: NodeJS.ProcessEnv = process.env): SystemConfig {
  return loadConfig(systemConfigSchema, env);
}
