/**
 * Latencies are counted in log-spaced buckets (each 25 % wider than the one before, from 0.1 ms),
 * so percentiles can be read from rollups without raw samples: an estimate within one bucket (±12 %).
 */
const BASE_MS = 0.1;
const GROWTH = 1.25;
const MAX_BUCKET = 80;

export function latencyBucket(ms: number): number {
  if (!(ms > BASE_MS)) return 0;
  return Math.min(MAX_BUCKET, Math.ceil(Math.log(ms / BASE_MS) / Math.log(GROWTH)));
}

/** The bucket's representative latency: the geometric middle of its bounds. */
export function bucketMs(bucket: number): number {
  if (bucket <= 0) return BASE_MS;
  return BASE_MS * GROWTH ** (bucket - 0.5);
}

/** The q-quantile (0..1) of a histogram (hist[i] = count in bucket i) holding `total` counts; 0 when empty. */
export function quantileMs(hist: readonly number[], total: number, q: number): number {
  if (total === 0) return 0;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let b = 0; b < hist.length; b++) {
    seen += hist[b] ?? 0;
    if (seen >= rank) return Math.round(bucketMs(b) * 100) / 100;
  }
  return 0;
}
