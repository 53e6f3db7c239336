import { AppError } from '@tollgate/kit';
import type { RateRepo } from '../repo/rate-repo';

export const MAX_WINDOW_SECONDS = 86_400;
export const MAX_HITS_PER_CALL = 100_000;

/**
 * Counts `hits` requests (default 1) against `limit` per fixed window (aligned to the epoch, so
 * hourly = clock hours). `allowed` and `remaining` describe the last of them; `count` lets a caller
 * that sent several tell each one's answer (hit i of n was number count − n + i).
 */
export async function hitRateLimit(deps: { rates: RateRepo }, r: { bucket: string; limit: number; windowSeconds: number; hits?: number }) {
  if (!r.bucket || r.bucket.length > 200) throw AppError.field(['bucket'], 'must be 1 to 200 characters');
  if (!(r.limit > 0)) throw AppError.field(['limit'], 'must be positive');
  if (!(r.windowSeconds > 0 && r.windowSeconds <= MAX_WINDOW_SECONDS)) throw AppError.field(['window_seconds'], `must be 1 to ${MAX_WINDOW_SECONDS}`);
  const hits = r.hits || 1;
  if (!(hits > 0 && hits <= MAX_HITS_PER_CALL)) throw AppError.field(['hits'], `must be 1 to ${MAX_HITS_PER_CALL}`);
  const { count, resetAt } = await deps.rates.hit(r.bucket, r.windowSeconds, hits);
  return { allowed: count <= r.limit, limit: r.limit, remaining: Math.max(0, r.limit - count), reset: resetAt, count };
}
