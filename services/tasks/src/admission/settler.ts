import type { GrpcClient, Logger } from '@tollgate/kit';
import type { BillingClient, SettleRequest } from '@tollgate/protos/billing';

const MAX_BATCH = 500;

/**
 * Coalesces settlements: whatever arrives while a SettleBatch call is under way goes out together
 * in the next one (one RPC, one SQL statement). A failed call is logged, not retried here: the
 * admissions keep their lease, and once it runs out the reconciler settles them by their task.
 */
export class Settler {
  private queue: Array<{ item: SettleRequest; done: () => void }> = [];
  private busy = false;

  constructor(
    private readonly billing: GrpcClient<BillingClient>,
    private readonly log: Logger,
  ) {}

  settle(items: SettleRequest[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const all = items.map((item) => new Promise<void>((done) => this.queue.push({ item, done })));
    if (!this.busy) void this.drain();
    return Promise.all(all).then(() => undefined);
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.billing.settleBatch({ items: batch.map((b) => b.item) });
        } catch (err) {
          this.log.warn({ err, count: batch.length }, 'settlement failed; the admissions are settled by their task once their lease runs out');
        }
        for (const b of batch) b.done();
      }
    } finally {
      this.busy = false;
    }
  }
}
