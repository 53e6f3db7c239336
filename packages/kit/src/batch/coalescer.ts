/** An item's wait ran out before its batch answered (it may still have been sent). */
export class CoalescerTimeout extends Error {
  override readonly name = 'CoalescerTimeout';
  constructor(readonly sent: boolean) {
    super(sent ? 'the batch carrying this item did not answer in time' : 'the item waited too long to be sent');
  }
}

interface Entry<I, R> {
  item: I;
  settled: boolean;
  sent: boolean;
  timer?: NodeJS.Timeout;
  resolve(r: R): void;
  reject(e: unknown): void;
}

/**
 * Coalesces calls of one kind: an item submitted while no batch is under way goes out at once;
 * items submitted while one is under way go out together in the next (at most `maxBatch` per
 * batch). `send` answers one result per item, in order; if it throws, every item of that batch
 * gets its error. An item given `waitMs` gets a CoalescerTimeout once that runs out: still queued,
 * it is never sent; already sent, its outcome is unknown to the caller. A deferred item (`defer`)
 * does not start a batch: it goes out with the next submitted item, or alone once its linger runs
 * out, so work that need not be sent at once rides along with work that must.
 */
export class Coalescer<I, R> {
  private queue: Array<Entry<I, R>> = [];
  private busy = false;
  private idle: Promise<void> = Promise.resolve();
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (items: I[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  /** `whileQueued`: `waitMs` only bounds the wait to be sent; once sent, the item waits for its answer. */
  submit(item: I, waitMs?: number, { whileQueued = false } = {}): Promise<R> {
    const result = new Promise<R>((resolve, reject) => {
      const entry: Entry<I, R> = { item, settled: false, sent: false, resolve, reject };
      if (waitMs !== undefined) {
        entry.timer = setTimeout(() => {
          if (entry.sent && whileQueued) return;
          const queued = entry.sent ? -1 : this.queue.indexOf(entry);
          if (queued >= 0) this.queue.splice(queued, 1);
          settle(entry, () => reject(new CoalescerTimeout(entry.sent)));
        }, Math.max(0, waitMs));
      }
      this.queue.push(entry);
    });
    this.start();
    return result;
  }

  /** Queues `item` without starting a batch: it goes out with the next one, or after `lingerMs`. */
  defer(item: I, lingerMs: number): Promise<R> {
    const result = new Promise<R>((resolve, reject) => this.queue.push({ item, settled: false, sent: false, resolve, reject }));
    if (!this.busy) this.lingering ??= setTimeout(() => this.start(), lingerMs);
    return result;
  }

  /** Sends whatever is queued now; resolves once every batch under way has been answered. */
  flush(): Promise<void> {
    if (this.queue.length > 0) this.start();
    return this.busy ? this.idle : Promise.resolve();
  }

  private start(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.busy) return;
    this.busy = true;
    this.idle = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        for (const e of batch) e.sent = true;
        try {
          const results = await this.send(batch.map((b) => b.item));
          if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} was answered with ${results.length} results`);
          batch.forEach((e, i) => settle(e, () => e.resolve(results[i])));
        } catch (err) {
          for (const e of batch) settle(e, () => e.reject(err));
        }
      }
    } finally {
      this.busy = false;
    }
  }
}

function settle<I, R>(entry: Entry<I, R>, done: () => void): void {
  if (entry.settled) return;
  entry.settled = true;
  clearTimeout(entry.timer);
  done();
}
