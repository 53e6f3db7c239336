import { AppError } from '@tollgate/kit';

/**
 * Bounds the executions being checked and admitted at once (the CPU- and database-bound start of
 * an execution, not the wait on a model). A caller waits for a slot at most `maxWaitMs`, then is
 * refused with UNAVAILABLE and a Retry-After hint (HTTP 503): under a burst the replica sheds load
 * early instead of letting every call queue until its deadline (504).
 */
export class AdmissionGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxWaitMs: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AppError('UNAVAILABLE', 'the tasks service is busy admitting other executions; try again shortly', { retryAfterSeconds: 1 }));
      }, this.maxWaitMs);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
