import { AppError } from '@tollgate/kit';
import { Decimal, isDecimalText, moneyText } from '../domain/money';
import type { UsageRepo } from '../repo/usage-repo';
import type { KeyUsageView } from './get-usage';

/**
 * A key's new quota ('' = unlimited), decided under the lock admissions take: refused at
 * body.quota when below used + reserved (unless `force`). Admissions then check against it,
 * whatever quota their caller had cached.
 */
export async function setKeyQuota(deps: { usage: UsageRepo }, input: { apiKeyId: number; accountId: number; quota: string; force: boolean }): Promise<KeyUsageView> {
  if (input.apiKeyId <= 0) throw AppError.field(['api_key_id'], 'api_key_id must be positive');
  if (input.quota !== '' && !isDecimalText(input.quota)) throw AppError.field(['body', 'quota'], 'quota must be a decimal ≥ 0');
  const quota = input.quota === '' ? null : input.quota;
  const set = await deps.usage.setQuota(input.apiKeyId, input.accountId, quota, input.force);
  if (!set) {
    const [now] = await deps.usage.findMany([input.apiKeyId]);
    const committed = moneyText((now?.usedQuota ?? new Decimal(0)).plus(now?.reserved ?? 0));
    throw AppError.field(['body', 'quota'], `quota ${input.quota} is below the quota already used or reserved by executions under way (${committed})`, 'less_than_used');
  }
  return { apiKeyId: input.apiKeyId, usedQuota: moneyText(set.usedQuota), reserved: moneyText(set.reserved), inFlight: set.inFlight };
}
