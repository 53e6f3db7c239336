import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const docsConfigSchema = serviceConfigSchema('docs', {}, () => ({}));

export type DocsConfig = ReturnType<typeof loadDocsConfig>;

export function loadDocsConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(docsConfigSchema, env);
}
