import { RecentValues } from '../src/cache/recent-values';

describe('RecentValues', () => {
  let now = 0;
  let lookups = 0;
  let value = 7;
  let failNext = false;
  const lookup = async (_key: string) => {
    lookups++;
    await new Promise((r) => setImmediate(r));
    if (failNext) {
      failNext = false;
      throw new Error('database away');
    }
    return value;
  };
  const settle = () => new Promise((r) => setImmediate(r));
  beforeEach(() => {
    now = 1_000;
    lookups = 0;
    value = 7;
    failNext = false;
  });

  it('shares one lookup among the reads that arrive while it runs', async () => {
    const values = new RecentValues(lookup, { maxAgeMs: 250, now: () => now });
    const reads = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? values.current('q') : values.recent('q'))));
    expect(reads).toEqual(Array(20).fill(7));
    expect(lookups).toBe(1);
  });

  it('serves the last value without a lookup until it is older than its age, then looks up again in the background', async () => {
    const values = new RecentValues(lookup, { maxAgeMs: 250, now: () => now });
    expect(await values.recent('q')).toBe(7);
    value = 40;
    now += 249;
    expect(values.recent('q')).toBe(7);
    expect(lookups).toBe(1);
    now += 1;
    expect(values.recent('q')).toBe(7); // still the last value, at once
    await settle();
    await settle();
    expect(lookups).toBe(2);
    expect(values.recent('q')).toBe(40);
    expect(await values.current('q')).toBe(40); // waits for billing-fresh figures
    expect(lookups).toBe(3);
  });

  it('passes a failed first lookup to its readers and looks up again at the next read', async () => {
    const values = new RecentValues(lookup, { maxAgeMs: 250, now: () => now });
    failNext = true;
    await expect(values.recent('q')).rejects.toThrow('database away');
    expect(await values.recent('q')).toBe(7);
    expect(lookups).toBe(2);
  });

  it('keeps the last value when a background lookup fails, and says so', async () => {
    const failed: unknown[] = [];
    const values = new RecentValues(lookup, { maxAgeMs: 250, now: () => now, onRefreshFailed: (_k, err) => failed.push(err) });
    expect(await values.recent('q')).toBe(7);
    now += 300;
    failNext = true;
    expect(values.recent('q')).toBe(7);
    await settle();
    await settle();
    expect(failed).toEqual([expect.objectContaining({ message: 'database away' })]);
    expect(values.recent('q')).toBe(7);
  });

  it('forgets everything past its largest number of keys, and looks each up again', async () => {
    const values = new RecentValues(lookup, { maxAgeMs: 10_000, maxKeys: 2, now: () => now });
    for (const k of ['a', 'b', 'c']) await values.recent(k);
    expect(lookups).toBe(3);
    await values.recent('a');
    expect(lookups).toBe(4);
  });
});
