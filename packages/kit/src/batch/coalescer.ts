import { outsideRequestContext } from '../context/request-context';

/**
 * Coalesces calls of one kind: an item submitted while no batch is under way goes out at once;
 * items submitted while one is under way go out together in the next (at most `maxBatch` per
 * batch). `send` answers one result per item, in order; if it throws, every item of that batch
 * gets its error. Batches run outside the submitter's request context: they serve many requests.
 */
export class Coalescer<I, R> {
  private queue: Array<{ item: I; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private busy = false;

  constructor(
    private readonly send: (items: I[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  submit(item: I): Promise<R> {
    const result = new Promise<R>((resolve, reject) => this.queue.push({ item, resolve, reject }));
    if (!this.busy) {
      this.busy = true;
      outsideRequestContext(() => void this.drain());
    }
    return result;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.send(batch.map((b) => b.item));
          if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} was answered with ${results.length} results`);
          batch.forEach((b, i) => b.resolve(results[i]));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
