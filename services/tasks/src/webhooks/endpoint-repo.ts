import type { TasksDb } from '../repo/prisma-types';
import type { EndpointRecord } from './types';

export interface NewEndpoint {
  id: string;
  accountId: number;
  url: string;
  events: string[];
  description: string;
  secret: string;
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string;
  active?: boolean;
}

/** First key of the advisory lock that serialises one account's subscription creates (the second is the account id). */
const ACCOUNT_WEBHOOKS_LOCK = 0x77656268; // "webh"

/** Subscriptions and the accounts' default secrets, in the tasks database. */
export class EndpointRepo {
  constructor(private readonly db: TasksDb) {}

  /**
   * Creates the subscription unless its account already has `max`; null then. The count and the
   * insert run under a lock of the account (a transaction-scoped advisory lock), so concurrent
   * creates cannot pass the limit together.
   */
  createWithin(e: NewEndpoint, max: number): Promise<EndpointRecord | null> {
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${ACCOUNT_WEBHOOKS_LOCK}::int, ${e.accountId}::int)`;
      if ((await tx.webhookEndpoint.count({ where: { accountId: e.accountId } })) >= max) return null;
      return tx.webhookEndpoint.create({ data: e });
    });
  }

  find(id: string): Promise<EndpointRecord | null> {
    return this.db.webhookEndpoint.findUnique({ where: { id } });
  }

  /** Every subscription of the account, or of everyone (admin), oldest first. */
  list(accountId: number | undefined): Promise<EndpointRecord[]> {
    return this.db.webhookEndpoint.findMany({ where: accountId === undefined ? {} : { accountId }, orderBy: { createdAt: 'asc' }, take: 1000 });
  }

  /** Every active subscription (the fan-out keeps them in memory: ActiveEndpoints). */
  allActive(): Promise<EndpointRecord[]> {
    return this.db.webhookEndpoint.findMany({ where: { active: true } });
  }

  /** Re-enabling clears the failure record and the reason. */
  update(id: string, change: EndpointChange): Promise<EndpointRecord> {
    return this.db.webhookEndpoint.update({
      where: { id },
      data: { ...change, ...(change.active !== undefined && { disabledReason: '', failingSince: null }) },
    });
  }

  rotate(id: string, secret: string, previous: string, previousUntil: Date): Promise<EndpointRecord> {
    return this.db.webhookEndpoint.update({ where: { id }, data: { secret, previousSecret: previous, previousSecretUntil: previousUntil } });
  }

  async delete(id: string): Promise<void> {
    await this.db.webhookEndpoint.delete({ where: { id } });
  }

  /** The account's default secret, made on first use (concurrent first uses agree on one). */
  async defaultSecret(accountId: number, make: () => string): Promise<{ secret: string; createdAt: Date }> {
    const found = await this.db.webhookAccountSecret.findUnique({ where: { accountId } });
    if (found) return found;
    await this.db.webhookAccountSecret.createMany({ data: [{ accountId, secret: make() }], skipDuplicates: true });
    return (await this.db.webhookAccountSecret.findUnique({ where: { accountId } }))!;
  }
}
