import type { GatewayDeps } from '../deps';

/** `used_quota` of each key from the billing service (decimal strings; keys with no usage used nothing). */
export async function usedQuotaOf(deps: GatewayDeps, apiKeyIds: number[]): Promise<Map<number, string>> {
  const used = new Map<number, string>();
  if (apiKeyIds.length === 0) return used;
  const res = await deps.upstreams.billing.getUsage({ apiKeyIds });
  for (const item of res.items) used.set(item.apiKeyId, item.usedQuota || '0');
  return used;
}

const inFlight = new WeakMap<GatewayDeps, Map<number, Promise<string>>>();

/**
 * One key's `used_quota` for the quota check: calls for a key made while its lookup is under way
 * share that lookup, so a burst on one key asks billing once per round trip, not once per request.
 * A snapshot is enough here: billing's admission is what holds the quota exactly.
 */
export function usedQuotaOfKey(deps: GatewayDeps, apiKeyId: number): Promise<string> {
  let pending = inFlight.get(deps);
  if (!pending) inFlight.set(deps, (pending = new Map()));
  const shared = pending.get(apiKeyId);
  if (shared) return shared;
  const lookup = usedQuotaOf(deps, [apiKeyId])
    .then((used) => used.get(apiKeyId) ?? '0')
    .finally(() => pending.delete(apiKeyId));
  pending.set(apiKeyId, lookup);
  return lookup;
}
