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

  constructor(
    private readonly lookup: (apiKeyId: number) => Promise<string>,
    private readonly onRefreshFailed: (apiKeyId: number, err: unknown) => void,
  ) {}

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

  /**
   * The floor known now, refreshed in the background when old; waits only for a key not seen yet
   * (its first call after this gateway started, or after the memory started again).
   */
  floor(apiKeyId: number): string | Promise<string> {
    const known = this.seen.get(apiKeyId);
    if (!known) return this.exact(apiKeyId);
    if (Date.now() - known.at > REFRESH_AFTER_MS) this.exact(apiKeyId).catch((err: unknown) => this.onRefreshFailed(apiKeyId, err));
    return known.used;
  }
}

const floors = new WeakMap<GatewayDeps, UsedQuotaFloor>();

export function usedQuotaFloor(deps: GatewayDeps): UsedQuotaFloor {
  let floor = floors.get(deps);
  if (!floor) {
    const lookup = async (id: number) => (await usedQuotaOf(deps, [id])).get(id) ?? '0';
    // The check goes on with the last figure; billing's admission still holds the quota exactly.
    const failed = (apiKeyId: number, err: unknown) => deps.log.warn({ err, apiKeyId }, 'refreshing a key\'s usage for the quota check failed');
    floors.set(deps, (floor = new UsedQuotaFloor(lookup, failed)));
  }
  return floor;
}
