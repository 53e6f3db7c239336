/**
 * How many async tasks wait for a worker, for the submission's time estimate. An estimate is
 * "about N seconds": a count at most `maxAgeMs` old serves every submission in that window, and
 * the submissions that find it stale share one recount instead of counting once each.
 */
export class WaitingGauge {
  private value: number | undefined;
  private countedAt = 0;
  private recount: Promise<number> | undefined;

  constructor(
    private readonly count: () => Promise<number>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  read(): Promise<number> {
    if (this.value !== undefined && this.now() - this.countedAt < this.maxAgeMs) return Promise.resolve(this.value);
    this.recount ??= this.count()
      .then((n) => {
        this.value = n;
        this.countedAt = this.now();
        return n;
      })
      .finally(() => {
        this.recount = undefined;
      });
    return this.recount;
  }
}
