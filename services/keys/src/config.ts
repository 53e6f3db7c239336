import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const keysConfigSchema = serviceConfigSchema('keys', {}, () => ({}));

export type KeysConfig = ReturnType<typeof loadKeysConfig>;

export function loadKeysConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(keysConfigSchema, env);
}
