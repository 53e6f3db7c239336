import type { DocumentEvent } from '@tollgate/kit';
import type { DocsDb } from '../db';
import { addEventCounts, type EventCount } from '../site/rollups';

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
        const done = rows.slice(0, published);
        await tx.$executeRaw`UPDATE outbox_events SET published_at = now() WHERE id = ANY(${done.map((r) => r.id)}::bigint[])`;
        await addEventCounts(tx, done.flatMap(contentCount));
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

/**
 * A document change counts in the content analytics (document.<change> by category) once, in the
 * transaction that marks its event published. Events written before they carried their actor
 * were counted in their own transaction, and are not counted again.
 */
function contentCount(row: OutboxRow): EventCount[] {
  if (!row.subject.startsWith('docs.document.')) return [];
  const e = row.payload as DocumentEvent;
  if (typeof e?.actor_account_id !== 'number') return [];
  return [{ metric: `document.${e.change}`, accountId: e.actor_account_id, atMs: Date.parse(e.at) || Date.now(), dim: e.category ?? e.document?.category ?? '', count: 1 }];
}
