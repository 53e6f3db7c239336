import type { DocsDb } from '../db';

export interface OutboxRow {
  id: bigint;
  subject: string;
  payload: unknown;
}

const TX_OPTIONS = { timeout: 60_000, maxWait: 10_000 };

/** The unpublished tail of the outbox, claimed in id order so that concurrent relays never publish a row twice at once. */
export class OutboxRepo {
  constructor(private readonly db: DocsDb) {}

  /**
   * Locks up to `limit` unpublished rows, hands them to `publish` (which returns how many of them,
   * from the first, reached the bus) and marks those published, all in one transaction.
   */
  claim(limit: number, publish: (rows: OutboxRow[]) => Promise<number>): Promise<{ claimed: number; published: number }> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<OutboxRow[]>`
        SELECT id, subject, payload FROM outbox_events
        WHERE published_at IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return { claimed: 0, published: 0 };
      const published = await publish(rows);
      if (published > 0) {
        const ids = rows.slice(0, published).map((r) => r.id);
        await tx.$executeRaw`UPDATE outbox_events SET published_at = now() WHERE id = ANY(${ids}::bigint[])`;
      }
      return { claimed: rows.length, published };
    }, TX_OPTIONS);
  }

  pending(): Promise<number> {
    return this.db.outboxEvent.count({ where: { publishedAt: null } });
  }

  /** Forgets rows published before `before`; they only mattered until the bus stored them. */
  async prune(before: Date): Promise<number> {
    const { count } = await this.db.outboxEvent.deleteMany({ where: { publishedAt: { lt: before } } });
    return count;
  }
}
