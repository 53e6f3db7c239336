/**
 * Warm-up to a steady state before a measured run.
 *
 * V8 optimises a request path over its first thousands of calls, and deoptimises and re-optimises
 * parts of it as the shapes it sees settle; its optimising compiler runs on background threads whose
 * CPU is Tollgate's. Measured on this 2-core host (a passthrough request at 1 client, five 6-second
 * runs back to back in one process): 2.88, 1.88, 1.69, 1.49, 1.53 ms of Tollgate CPU per request,
 * the background threads falling from 0.80 to 0.12 ms of it. A fixed 2-second warm-up measured the
 * compiler as much as the code. So each load is repeated in short rounds until its CPU per request
 * stops falling, and only then measured; the first round's figure is kept as the cold cost.
 */

export interface WarmUpPolicy {
  /** Seconds of each round. */
  roundSeconds: number;
  /** Rounds run at least (the first is always cold). */
  minRounds: number;
  /** Seconds of rounds at most; the load is measured then, settled or not (0: no warm-up). */
  maxSeconds: number;
  /** Settled: the last round's CPU per request no more than this share below the round before it. */
  tolerance: number;
}

export const DEFAULT_WARM_UP: WarmUpPolicy = {
  roundSeconds: Number(process.env.BENCH_WARMUP_ROUND_SECONDS ?? 3),
  minRounds: 2,
  maxSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 30),
  tolerance: 0.06,
};

/** One warm-up round: requests answered and the CPU ms Tollgate spent on them. */
export interface Round {
  requests: number;
  cpuMs: number;
}

export interface WarmedUp {
  /** CPU ms per request of each round, in order. */
  cpuPerRequest: number[];
  settled: boolean;
  seconds: number;
}

const perRequest = (r: Round) => (r.requests > 0 ? r.cpuMs / r.requests : Infinity);

/**
 * Whether the rounds so far show a steady state: at least `minRounds`, and the last round's CPU per
 * request no more than `tolerance` below the one before it (the cost has stopped falling; a rise is
 * the host's noise, not the JIT's warm-up).
 */
export function settled(rounds: Round[], policy: Pick<WarmUpPolicy, 'minRounds' | 'tolerance'>): boolean {
  if (rounds.length < Math.max(2, policy.minRounds)) return false;
  const last = perRequest(rounds[rounds.length - 1]);
  const before = perRequest(rounds[rounds.length - 2]);
  return Number.isFinite(last) && last >= before * (1 - policy.tolerance);
}

/** Runs `round` until `settled`, or until `policy.maxSeconds` of rounds have run. */
export async function warmUp(round: (seconds: number) => Promise<Round>, policy: WarmUpPolicy = DEFAULT_WARM_UP): Promise<WarmedUp> {
  const rounds: Round[] = [];
  let seconds = 0;
  while (seconds < policy.maxSeconds) {
    rounds.push(await round(policy.roundSeconds));
    seconds += policy.roundSeconds;
    if (settled(rounds, policy)) return { cpuPerRequest: rounds.map(perRequest), settled: true, seconds };
  }
  return { cpuPerRequest: rounds.map(perRequest), settled: false, seconds };
}

/**
 * Waits until the system is idle: under `threshold` of a core for two seconds running (as read by
 * `cpuMs`, e.g. Tollgate's and PostgreSQL's together), for at most `maxSeconds`. What one load
 * leaves behind (a backlog of events for the webhooks' consumer, an index's upkeep, autovacuum)
 * must not be counted against the next. Resolves with the seconds waited and whether it got quiet.
 */
export async function quiet(cpuMs: () => number, { threshold = 0.1, maxSeconds = 60 } = {}): Promise<{ seconds: number; quiet: boolean }> {
  const started = performance.now();
  let calm = 0;
  while (calm < 2 && performance.now() - started < maxSeconds * 1000) {
    const before = cpuMs();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    calm = cpuMs() - before < threshold * 1000 ? calm + 1 : 0;
  }
  return { seconds: Math.round((performance.now() - started) / 100) / 10, quiet: calm >= 2 };
}
