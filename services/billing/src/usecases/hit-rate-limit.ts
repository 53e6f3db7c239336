import { AppError } from '@tollgate/kit';
import type { RateRepo } from '../repo/rate-repo';

export const MAX_WINDOW_SECONDS = 86_400;

/** Counts one request against `limit` per fixed window (aligned to the epoch, so hourly = clock hours). */
export async function hitRateLimit(deps: { rates: RateRepo }, r: { bucket: string; limit: number; windowSeconds: number }) {
  if (!r.bucket || r.bucket.length > 200) throw AppError.field(['bucket'], 'must be 1 to 200 characters');
  if (!(r.limit > 0)) throw AppError.field(['limit'], 'must be positive');
  if (!(r.windowSeconds > 0 && r.windowSeconds <= MAX_WINDOW_SECONDS)) throw AppError.field(['window_seconds'], `must be 1 to ${MAX_WINDOW_SECONDS}`);
  const { count, resetAt } = await deps.rates.hit(r.bucket, r.windowSeconds);
  return { allowed: count <= r.limit, limit: r.limit, remaining: Math.max(0, r.limit - count), reset: resetAt };
}
