import type { HitRateLimitRequest, HitRateLimitResponse } from '@tollgate/protos/billing';

export interface RateAnswer {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

interface Waiter {
  limit: number;
  resolve(answer: RateAnswer): void;
  reject(err: unknown): void;
}

interface Bucket {
  inFlight: boolean;
  queue: Waiter[];
}

/**
 * Counts requests per bucket in billing's shared windows, one call per bucket at a time: hits that
 * arrive while a bucket's call is under way wait and go together as the next call (`hits` = n).
 * The window stays exact across replicas; an account's burst costs one statement per round trip
 * instead of one per request, all queued on the same row.
 */
export class RateCounter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly send: (request: HitRateLimitRequest) => Promise<HitRateLimitResponse>,
    private readonly windowSeconds: number,
  ) {}

  hit(bucket: string, limit: number): Promise<RateAnswer> {
    return new Promise((resolve, reject) => {
      let b = this.buckets.get(bucket);
      if (!b) this.buckets.set(bucket, (b = { inFlight: false, queue: [] }));
      b.queue.push({ limit, resolve, reject });
      if (!b.inFlight) this.flush(bucket, b);
    });
  }

  private flush(name: string, b: Bucket): void {
    const batch = b.queue;
    b.queue = [];
    b.inFlight = true;
    const limit = batch[batch.length - 1].limit;
    this.send({ bucket: name, limit, windowSeconds: this.windowSeconds, hits: batch.length })
      .then(
        (r) => batch.forEach((w, i) => w.resolve(answerFor(r, batch.length, i, w.limit))),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        b.inFlight = false;
        if (b.queue.length > 0) this.flush(name, b);
        else this.buckets.delete(name);
      });
  }
}

/** Hit i (0-based) of n counted together was number count − n + i + 1 of its window. */
function answerFor(r: HitRateLimitResponse, n: number, i: number, limit: number): RateAnswer {
  const count = (r.count || n) - n + i + 1;
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), reset: Number(r.reset) };
}
