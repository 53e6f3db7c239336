import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const billingConfigSchema = serviceConfigSchema('billing', {}, () => ({}));

export type BillingConfig = ReturnType<typeof loadBillingConfig>;

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(billingConfigSchema, env);
}
