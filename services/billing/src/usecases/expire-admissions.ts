import type { Logger } from '@tollgate/kit';
import type { AdmissionRepo } from '../repo/admission-repo';
import type { RateRepo } from '../repo/rate-repo';
import { settleBatch } from './settle';

const BATCH = 100;
/** Rate windows are at most a day long; older ones are no longer read. */
const RATE_WINDOW_RETENTION_SECONDS = 2 * 86_400;

/**
 * Housekeeping: refunds admissions without a lease (provider passthrough) nobody settled within
 * the TTL (a gateway died mid-call), which also frees their concurrency slots, and drops old
 * rate-limit windows. Leased admissions (task executions) are reconciled by the tasks service.
 */
export async function expireAdmissions(deps: { admissions: AdmissionRepo; rates: RateRepo; log: Logger }, ttlSeconds: number): Promise<number> {
  let expired = 0;
  for (;;) {
    const stale = await deps.admissions.stale(ttlSeconds, BATCH);
    const results = await settleBatch(deps, stale.map((taskNumber) => ({ taskNumber, outcome: 'refund', units: { inputTokens: 0, outputTokens: 0, seconds: '' } })));
    expired += results.filter((r) => r.found && !r.alreadySettled).length;
    if (stale.length < BATCH) break;
  }
  if (expired) deps.log.warn({ expired, ttlSeconds }, 'refunded admissions that were never settled');
  await deps.rates.dropOlderThan(RATE_WINDOW_RETENTION_SECONDS);
  return expired;
}
