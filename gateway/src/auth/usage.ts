import type { GatewayDeps } from '../deps';

/** `used_quota` of each key from the billing service (decimal strings; keys with no usage used nothing). */
export async function usedQuotaOf(deps: GatewayDeps, apiKeyIds: number[]): Promise<Map<number, string>> {
  const used = new Map<number, string>();
  if (apiKeyIds.length === 0) return used;
  const res = await deps.upstreams.billing.getUsage({ apiKeyIds });
  for (const item of res.items) used.set(item.apiKeyId, item.usedQuota || '0');
  return used;
}
