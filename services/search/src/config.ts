import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const searchConfigSchema = serviceConfigSchema('search', {}, () => ({}));

export type SearchConfig = ReturnType<typeof loadSearchConfig>;

export function loadSearchConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(searchConfigSchema, env);
}
