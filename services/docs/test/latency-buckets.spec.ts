import { bucketMs, latencyBucket, quantileMs } from '../src/site/latency-buckets';

describe('latency histogram buckets', () => {
  it('puts a latency in a bucket whose representative value is within 12 %', () => {
    for (const ms of [0.2, 1, 3.3, 17, 250, 4_000, 59_000]) {
      const estimate = bucketMs(latencyBucket(ms));
      expect(Math.abs(estimate - ms) / ms).toBeLessThan(0.12);
    }
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(-5)).toBe(0);
    expect(latencyBucket(Number.NaN)).toBe(0);
    expect(latencyBucket(1e12)).toBe(80);
  });

  it('reads quantiles from a histogram', () => {
    const hist: number[] = [];
    for (let ms = 1; ms <= 1000; ms++) hist[latencyBucket(ms)] = (hist[latencyBucket(ms)] ?? 0) + 1;
    const filled = Array.from(hist, (n) => n ?? 0);
    for (const [q, exact] of [[0.5, 500], [0.95, 950], [0.99, 990]] as const) {
      const got = quantileMs(filled, 1000, q);
      expect(Math.abs(got - exact) / exact).toBeLessThan(0.13);
    }
    expect(quantileMs([], 0, 0.5)).toBe(0);
  });
});
