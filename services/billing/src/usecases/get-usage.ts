import { moneyText } from '../domain/money';
import type { UsageRepo } from '../repo/usage-repo';

export interface KeyUsageView {
  apiKeyId: number;
  usedQuota: string;
  reserved: string;
  inFlight: number;
}

/** used_quota per key, for the keys API and its "quota below used" check; a key never admitted has used 0. */
export async function getUsage(deps: { usage: UsageRepo }, apiKeyIds: number[]): Promise<KeyUsageView[]> {
  const ids = [...new Set(apiKeyIds.filter((id) => id > 0))];
  const found = new Map((await deps.usage.findMany(ids)).map((u) => [u.apiKeyId, u]));
  return ids.map((apiKeyId) => {
    const u = found.get(apiKeyId);
    return { apiKeyId, usedQuota: moneyText(u?.usedQuota ?? 0), reserved: moneyText(u?.reserved ?? 0), inFlight: u?.inFlight ?? 0 };
  });
}
