import { Coalescer, type GrpcClient, type Logger } from '@tollgate/kit';
import type { BillingClient, SettleRequest } from '@tollgate/protos/billing';

const MAX_BATCH = 500;

/**
 * Coalesces settlements: whatever arrives while a SettleBatch call is under way goes out together
 * in the next one (one RPC, one SQL statement). A failed call is logged, not retried here: the
 * admissions keep their lease, and once it runs out the reconciler settles them by their task.
 */
export class Settler {
  private readonly batches: Coalescer<SettleRequest, void>;

  constructor(billing: GrpcClient<BillingClient>, log: Logger) {
    this.batches = new Coalescer<SettleRequest, void>(async (items) => {
      try {
        await billing.settleBatch({ items });
      } catch (err) {
        log.warn({ err, count: items.length }, 'settlement failed; the admissions are settled by their task once their lease runs out');
      }
      return items.map((): void => undefined);
    }, MAX_BATCH);
  }

  async settle(items: SettleRequest[]): Promise<void> {
    await Promise.all(items.map((item) => this.batches.submit(item)));
  }
}
