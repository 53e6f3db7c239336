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
 * the same 429. So the quota check asks billing in the background, at most once per key per second,
 * instead of once per request; only where the order of the checks depends on the exact figure (an
 * expired key: used up is 429, before expired's 401) does a request wait for billing.
 */
export class UsedQuotaFloor {
  private readonly seen = new Map<number, { used: string; at: number }>();
  private readonly asking = new Map<number, Promise<string>>();

  constructor(private readonly lookup: (apiKeyId: number) => Promise<string>) {}

  /** billing's figure now; concurrent calls for one key share one lookup. */
  exact(apiKeyId: number): Promise<string> {
    const shared = this.asking.get(apiKeyId);
    if (shared) return shared;
    const asked = this.lookup(apiKeyId)
      .then((used) => {
        if (this.seen.size >= MAX_KEYS) this.seen.clear();
        this.seen.set(apiKeyId, { used, at: Date.now() });
        return used;
      })
      .finally(() => this.asking.delete(apiKeyId));
    this.asking.set(apiKeyId, asked);
    return asked;
  }

  /** The floor known now ('0' before the first answer), refreshed in the background when old; never waits. */
  floor(apiKeyId: number): string {
    const known = this.seen.get(apiKeyId);
    if (!known || Date.now() - known.at > REFRESH_AFTER_MS) this.exact(apiKeyId).catch(() => undefined);
    return known?.used ?? '0';
  }
}

const floors = new WeakMap<GatewayDeps, UsedQuotaFloor>();

export function usedQuotaFloor(deps: GatewayDeps): UsedQuotaFloor {
  let floor = floors.get(deps);
  if (!floor) floors.set(deps, (floor = new UsedQuotaFloor(async (id) => (await usedQuotaOf(deps, [id])).get(id) ?? '0')));
  return floor;
}
