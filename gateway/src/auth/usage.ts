import { RecentValues } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';

/** `used_quota` of each key from the billing service (decimal strings; keys with no usage used nothing). */
export async function usedQuotaOf(deps: GatewayDeps, apiKeyIds: number[]): Promise<Map<number, string>> {
  const used = new Map<number, string>();
  if (apiKeyIds.length === 0) return used;
  const res = await deps.upstreams.billing.getUsage({ apiKeyIds });
  for (const item of res.items) used.set(item.apiKeyId, item.usedQuota || '0');
  return used;
}

/** How old what is known of a key's usage may get before it is asked again (in the background). */
const REFRESH_AFTER_MS = 1_000;
/** Keys remembered at most; beyond, the memory starts again (each key's next call asks billing). */
const MAX_KEYS = 100_000;

/**
 * The `used_quota` last seen per key. It only grows (settlements add to it, nothing takes from it),
 * so what was seen is a floor of the truth: a key whose floor reaches its quota is used up for
 * sure, and one whose floor does not is checked exactly by billing's admission, which refuses with
 * the same 429. So the quota check (`recent`) asks billing in the background, at most once per key
 * per second, instead of once per request; only where the order of the checks depends on the exact
 * figure (an expired key: used up is 429, before expired's 401) does a request wait (`current`).
 */
export type UsedQuotaFloor = RecentValues<number, string>;

const floors = new WeakMap<GatewayDeps, UsedQuotaFloor>();

export function usedQuotaFloor(deps: GatewayDeps): UsedQuotaFloor {
  let floor = floors.get(deps);
  if (!floor) {
    floor = new RecentValues(async (id: number) => (await usedQuotaOf(deps, [id])).get(id) ?? '0', {
      maxAgeMs: REFRESH_AFTER_MS,
      maxKeys: MAX_KEYS,
      // The check goes on with the last figure; billing's admission still holds the quota exactly.
      onRefreshFailed: (apiKeyId, err) => deps.log.warn({ err, apiKeyId }, 'refreshing a key\'s usage for the quota check failed'),
    });
    floors.set(deps, floor);
  }
  return floor;
}
