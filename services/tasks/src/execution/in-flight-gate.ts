import { AppError } from '@tollgate/kit';

/**
 * Bounds the executions one replica works on at once: one more than `max` is refused at once with
 * UNAVAILABLE and a Retry-After hint (HTTP 503), before anything is checked or reserved.
 */
export class InFlightGate {
  private active = 0;

  constructor(private readonly max: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) throw new AppError('UNAVAILABLE', `the tasks service is running ${this.max} executions; try again shortly`, { retryAfterSeconds: 1 });
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
    }
  }
}
