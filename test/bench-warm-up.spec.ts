import { settled, warmUp, type Round, type WarmUpPolicy } from '../bench/warm-up';

const policy: WarmUpPolicy = { roundSeconds: 3, minRounds: 2, maxSeconds: 30, tolerance: 0.06 };
const rounds = (...cpuPerRequest: number[]): Round[] => cpuPerRequest.map((ms) => ({ requests: 1_000, cpuMs: ms * 1_000 }));

/** A load whose CPU per request is taken from `series`, one value per round (the last repeats). */
function scripted(series: number[]) {
  const asked: number[] = [];
  const round = async (seconds: number): Promise<Round> => {
    asked.push(seconds);
    const ms = series[Math.min(asked.length - 1, series.length - 1)];
    return { requests: 500, cpuMs: ms * 500 };
  };
  return { round, asked };
}

describe('bench warm-up: when a load has reached its steady state', () => {
  it('is never settled after one round, however flat', () => {
    expect(settled(rounds(1.5), policy)).toBe(false);
  });

  it('is not settled while the CPU per request still falls by more than the tolerance', () => {
    // The passthrough's measured series on this host: 2.88, 1.88, 1.69, 1.49, 1.53 ms.
    expect(settled(rounds(2.88, 1.88), policy)).toBe(false);
    expect(settled(rounds(2.88, 1.88, 1.69), policy)).toBe(false);
    expect(settled(rounds(2.88, 1.88, 1.69, 1.49), policy)).toBe(false);
    expect(settled(rounds(2.88, 1.88, 1.69, 1.49, 1.53), policy)).toBe(true);
  });

  it('is settled when the last round fell by less than the tolerance, or rose', () => {
    expect(settled(rounds(2.0, 1.9), policy)).toBe(true);
    expect(settled(rounds(2.0, 2.6), policy)).toBe(true);
  });

  it('is not settled by a round that answered nothing', () => {
    expect(settled([{ requests: 1_000, cpuMs: 2_000 }, { requests: 0, cpuMs: 50 }], policy)).toBe(false);
  });

  it('honours a larger minimum of rounds', () => {
    expect(settled(rounds(1.5, 1.5), { ...policy, minRounds: 3 })).toBe(false);
    expect(settled(rounds(1.5, 1.5, 1.5), { ...policy, minRounds: 3 })).toBe(true);
  });
});

describe('bench warm-up: the rounds it runs', () => {
  it('stops at the first settled round and reports every round, the cold one first', async () => {
    const load = scripted([2.88, 1.88, 1.69, 1.49, 1.53, 1.5]);
    const warm = await warmUp(load.round, policy);
    expect(load.asked).toEqual([3, 3, 3, 3, 3]);
    expect(warm.settled).toBe(true);
    expect(warm.seconds).toBe(15);
    expect(warm.cpuPerRequest.map((x) => Math.round(x * 100) / 100)).toEqual([2.88, 1.88, 1.69, 1.49, 1.53]);
  });

  it('gives up after maxSeconds of rounds, not settled, when the cost keeps falling', async () => {
    const load = scripted(Array.from({ length: 20 }, (_, i) => 10 * 0.8 ** i));
    const warm = await warmUp(load.round, { ...policy, maxSeconds: 12 });
    expect(load.asked).toHaveLength(4);
    expect(warm).toMatchObject({ settled: false, seconds: 12 });
  });

  it('runs no round when maxSeconds is 0', async () => {
    const load = scripted([1]);
    const warm = await warmUp(load.round, { ...policy, maxSeconds: 0 });
    expect(load.asked).toHaveLength(0);
    expect(warm).toEqual({ cpuPerRequest: [], settled: false, seconds: 0 });
  });
});
