import type { DocumentEvent } from '@tollgate/kit';
import { Prisma } from '../generated/prisma/client';
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
   * Locks up to `limit` unpublished rows with ids above `after` (what this relay has published so
   * far) and hands them to `publish` (which returns how many of them, from the first, reached the
   * bus), in one transaction, so concurrent relays never publish a row twice at once. Rows are
   * marked published later (markPublished), once the bus says their events are safe; until then
   * they stay below `after`, and no claim reads them again.
   */
  claim(limit: number, after: bigint, publish: (rows: OutboxRow[]) => Promise<number>): Promise<{ claimed: number; published: number }> {
    return this.claimWith(this.claimStatement(after, limit), publish);
  }

  /** The same for rows given by id (those found by `unpublishedUpTo` that the relay does not hold). */
  claimIds(ids: bigint[], publish: (rows: OutboxRow[]) => Promise<number>): Promise<{ claimed: number; published: number }> {
    return this.claimWith(Prisma.sql`
      SELECT id, subject, payload FROM outbox_events
      WHERE id = ANY(${ids}::bigint[]) AND published_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`, publish);
  }

  claimStatement(after: bigint, limit: number): Prisma.Sql {
    return Prisma.sql`
      SELECT id, subject, payload FROM outbox_events
      WHERE published_at IS NULL AND id > ${after} ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
  }

  /** Ids of unpublished rows up to `upTo`, in order: the relay's own unmarked rows and rows whose transactions committed late. */
  async unpublishedUpTo(upTo: bigint, limit: number): Promise<bigint[]> {
    const rows = await this.db.$queryRaw<Array<{ id: bigint }>>`
      SELECT id FROM outbox_events WHERE published_at IS NULL AND id <= ${upTo} ORDER BY id LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  private claimWith(statement: Prisma.Sql, publish: (rows: OutboxRow[]) => Promise<number>): Promise<{ claimed: number; published: number }> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<OutboxRow[]>(statement);
      if (rows.length === 0) return { claimed: 0, published: 0 };
      return { claimed: rows.length, published: await publish(rows) };
    }, TX_OPTIONS);
  }

  /** Marks rows published (and counts them in the content analytics, once), in one transaction. */
  async markPublished(rows: OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.$transaction(async (tx) => {
      const marked = await tx.$queryRaw<Array<{ id: bigint }>>`
        UPDATE outbox_events SET published_at = now() WHERE id = ANY(${rows.map((r) => r.id)}::bigint[]) AND published_at IS NULL RETURNING id`;
      const fresh = new Set(marked.map((r) => String(r.id)));
      await addEventCounts(tx, rows.filter((r) => fresh.has(String(r.id))).flatMap(contentCount));
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
