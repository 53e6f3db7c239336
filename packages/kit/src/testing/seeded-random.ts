/**
 * A seeded pseudo-random number generator (mulberry32) for generated test and bench data: the
 * same seed gives the same sequence on every machine. All arithmetic is 32-bit integer math, so
 * the sequence has its full period (2^32); a float LCG such as (seed · 1103515245 + 12345) mod 2^31
 * loses precision past 2^53 and falls into a cycle of about a hundred values.
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
