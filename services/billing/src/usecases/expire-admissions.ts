import type { Logger } from '@tollgate/kit';
import type { AdmissionRepo } from '../repo/admission-repo';
import type { RateRepo } from '../repo/rate-repo';
import { settle } from './settle';

const BATCH = 100;
/** Rate windows are at most a day long; older ones are no longer read. */
const RATE_WINDOW_RETENTION_SECONDS = 2 * 86_400;

/**
 * Housekeeping: refunds admissions nobody settled within the TTL (a gateway died mid-execution),
 * which also frees their concurrency slots, and drops old rate-limit windows.
 */
export async function expireAdmissions(deps: { admissions: AdmissionRepo; rates: RateRepo; log: Logger }, ttlSeconds: number): Promise<number> {
  let expired = 0;
  for (;;) {
    const stale = await deps.admissions.stale(ttlSeconds, BATCH);
    for (const taskNumber of stale) {
      const r = await settle(deps, { taskNumber, outcome: 'refund', units: { inputTokens: 0, outputTokens: 0, seconds: '' } });
      if (!r.alreadySettled) expired++;
    }
    if (stale.length < BATCH) break;
  }
  if (expired) deps.log.warn({ expired, ttlSeconds }, 'refunded admissions that were never settled');
  await deps.rates.dropOlderThan(RATE_WINDOW_RETENTION_SECONDS);
  return expired;
}
