import { seededRandom } from '@tollgate/kit/src/testing/seeded-random';

/** The kit's seeded generator (mulberry32) with a fuzzer's helpers: the same seed gives the same run. */
export class Rng {
  readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = seededRandom(seed >>> 0);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** FUZZ_SEED when set (to replay a run), otherwise a fresh one. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.FUZZ_SEED;
  if (given && /^\d+$/.test(given)) return Number(given) >>> 0;
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}
