import { WaitingGauge } from '../src/execution/waiting-gauge';

describe('WaitingGauge', () => {
  let now = 0;
  let counts = 0;
  let queue = 7;
  let failNext = false;
  const count = async () => {
    counts++;
    await new Promise((r) => setImmediate(r));
    if (failNext) {
      failNext = false;
      throw new Error('database away');
    }
    return queue;
  };
  beforeEach(() => {
    now = 1_000;
    counts = 0;
    queue = 7;
    failNext = false;
  });

  it('shares one count among the reads that arrive while it runs', async () => {
    const gauge = new WaitingGauge(count, 250, () => now);
    const reads = await Promise.all(Array.from({ length: 20 }, () => gauge.read()));
    expect(reads).toEqual(Array(20).fill(7));
    expect(counts).toBe(1);
  });

  it('serves a fresh count without counting again, and recounts once it is older than its age', async () => {
    const gauge = new WaitingGauge(count, 250, () => now);
    expect(await gauge.read()).toBe(7);
    queue = 40;
    now += 249;
    expect(await gauge.read()).toBe(7);
    expect(counts).toBe(1);
    now += 1;
    expect(await gauge.read()).toBe(40);
    expect(counts).toBe(2);
  });

  it('passes a failed count to its readers and counts again at the next read', async () => {
    const gauge = new WaitingGauge(count, 250, () => now);
    failNext = true;
    await expect(gauge.read()).rejects.toThrow('database away');
    expect(await gauge.read()).toBe(7);
    expect(counts).toBe(2);
  });
});
