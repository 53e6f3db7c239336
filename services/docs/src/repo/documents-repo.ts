import { AppError, ErrorCode, ListEstimates, listTotal, type DocumentChange as ChangeKind, type HotQueryable, type ListEstimateOptions } from '@tollgate/kit';
import type { DocsDb } from '../db';
import { Prisma } from '../generated/prisma/client';
import type { DocumentFields, DocumentRow, RevisionRow } from '../domain/document';
import { documentEvent } from '../domain/events';
import { documentNotFound, slugTaken } from '../domain/errors';

type Tx = Prisma.TransactionClient;
type Sql = Prisma.Sql;
const { sql, join } = Prisma;

/**
 * Lists count matching documents exactly up to this many; above it the total is PostgreSQL's
 * planner estimate (kept per filter for a couple of seconds: ListEstimates). Pages come off the
 * `(updated_at, id)` index: page one costs the same at a hundred documents and at a hundred thousand.
 */
export const EXACT_TOTAL_CAP = 100;

/** What a use case decides about the current row; `null` means nothing changes. */
export interface PlannedChange {
  fields: Partial<DocumentFields> & { deletedAt?: Date | null };
  event: Exclude<ChangeKind, 'created'>;
  /** Keep a revision of the new version (content updates do; trash moves do not). */
  revision: boolean;
  /** What the change means beyond its kind (a restore out of the trash is an `updated` event with action `restored`). */
  action?: 'restored';
}

export interface ListFilter {
  category?: string;
  tag?: string;
  status?: string;
  authorAccountId?: number;
  deleted: boolean;
  /** Restricts to documents this account may see; undefined for admins. */
  visibleTo?: number;
  offset: number;
  limit: number;
}

const TX_OPTIONS = { timeout: 15_000, maxWait: 10_000 };
/** One bulk transaction writes up to 1,000 documents three times (rows, revisions, events). */
const BULK_TX_OPTIONS = { timeout: 60_000, maxWait: 10_000 };

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === 'P2002';
/** The same from a raw statement: Prisma reports PostgreSQL's own code (23505) in meta, or in the message. */
const isRawUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; meta?: { code?: string }; message?: string };
  return e?.meta?.code === '23505' || /\b23505\b|duplicate key value/.test(e?.message ?? '');
};

/** Documents, their revisions and the outbox: every change and its event commit together. */
export class DocumentsRepo {
  private readonly estimates: ListEstimates<Omit<ListFilter, 'offset' | 'limit'>>;

  constructor(
    private readonly db: DocsDb,
    /** Plain `pg` for the single-statement writes (a HotPool in the service). */
    private readonly hot: HotQueryable,
    /** Called after a change committed (wakes the outbox relay). */
    private readonly committed: () => void = () => {},
    estimates: ListEstimateOptions = {},
  ) {
    this.estimates = new ListEstimates((filter) => this.estimateMatching(filter), estimates);
  }

  /**
   * A new document at version 1 with its first revision and its `created` event: one statement on
   * the hot pool (its three inserts commit together), not an interactive transaction.
   */
  async create(fields: DocumentFields, authorAccountId: number): Promise<DocumentRow> {
    const now = new Date();
    const draft: DocumentRow = { ...fields, id: 0, authorAccountId, version: 1, createdAt: now, updatedAt: now, deletedAt: null };
    const { subject, payload } = documentEvent('created', draft, authorAccountId);
    const { rows } = await this.hot
      .query<DocumentSqlRow>(
        `WITH d AS (
           INSERT INTO documents (slug, title, content, category, tags, status, author_account_id, version, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5::text[], $6, $7, 1, $8::timestamptz AT TIME ZONE 'UTC', $8::timestamptz AT TIME ZONE 'UTC')
           RETURNING *
         ), r AS (
           INSERT INTO revisions (document_id, version, title, content, category, tags, author_account_id, created_at, status)
           SELECT id, version, title, content, category, tags, author_account_id, created_at, status FROM d
         ), o AS (
           INSERT INTO outbox_events (subject, payload)
           SELECT $9, jsonb_set(jsonb_set($10::jsonb, '{id}', to_jsonb(d.id)), '{document,id}', to_jsonb(d.id)) FROM d
         )
         SELECT * FROM d`,
        [fields.slug, fields.title, fields.content, fields.category, fields.tags, fields.status, authorAccountId, now.toISOString(), subject, JSON.stringify(payload)],
      )
      .catch((err: unknown) => {
        throw (err as { code?: string })?.code === '23505' ? slugTaken(fields.slug) : err;
      });
    this.committed();
    return fromSql(rows[0]);
  }

  /** Locks the row, lets `plan` decide, writes the new version (+ revision by `editorAccountId`) and its event. */
  async change(id: number, editorAccountId: number, plan: (current: DocumentRow) => PlannedChange | null): Promise<DocumentRow> {
    let changed = false;
    let slug = '';
    const row = await this.db
      .$transaction(async (tx) => {
        const current = await this.lock(tx, id);
        const planned = plan(current);
        if (!planned) return current;
        slug = planned.fields.slug ?? '';
        const doc = await tx.document.update({ where: { id }, data: { ...planned.fields, version: current.version + 1 } });
        if (planned.revision) await this.keepRevision(tx, doc, editorAccountId);
        await this.writeEvent(tx, planned.event, doc, editorAccountId, { action: planned.action });
        changed = true;
        return doc;
      }, TX_OPTIONS)
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? slugTaken(slug) : err;
      });
    if (changed) this.committed();
    return row;
  }

  /** Removes the document and all its revisions; the event's version supersedes every earlier one. */
  async destroy(id: number, check: (current: DocumentRow) => void, actorAccountId = 0): Promise<DocumentRow> {
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.lock(tx, id);
      check(current);
      await tx.revision.deleteMany({ where: { documentId: id } });
      await tx.document.delete({ where: { id } });
      await this.writeEvent(tx, 'deleted', current, actorAccountId, { permanent: true, version: current.version + 1 });
      return current;
    }, TX_OPTIONS);
    this.committed();
    return row;
  }

  /**
   * Creates many documents in one transaction: the rows, their first revisions and their
   * `created` events. All or nothing: a slug taken meanwhile fails the whole call with slugTaken.
   * Three set-based statements (unnest of column arrays) rather than Prisma's createMany: the
   * contents travel once, and revisions are copied inside the database. Returns the rows in the
   * order of `docs`.
   */
  async createMany(docs: DocumentFields[], authorAccountId: number): Promise<DocumentRow[]> {
    if (docs.length === 0) return [];
    const rows = await this.db.$transaction((tx) => insertMany(tx, docs, authorAccountId), BULK_TX_OPTIONS).catch(slugTakenOrRethrow);
    this.committed();
    return rows;
  }

  /**
   * Runs `work` in one transaction that first takes the slug lock of each of `bases` (advisory,
   * transaction-scoped, in sorted order): creators deriving slugs from one title then read the
   * taken slugs and write theirs one after another, so none picks a slug another is writing.
   */
  async withSlugLocks<T>(bases: string[], work: (w: SlugWriter) => Promise<T>): Promise<T> {
    const out = await this.db
      .$transaction(async (tx) => {
        for (const base of [...new Set(bases)].sort()) await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`docs-slug:${base}`}))`;
        return work({ takenSlugs: (slugs, prefixes) => takenSlugsIn(tx, slugs, prefixes), createMany: (docs, author) => insertMany(tx, docs, author) });
      }, BULK_TX_OPTIONS)
      .catch(slugTakenOrRethrow);
    this.committed();
    return out;
  }

  /** Which of `slugs` are taken, and every taken slug that starts with one of `prefixes` (few: only bases already taken). */
  takenSlugs(slugs: string[], prefixes: string[]): Promise<Set<string>> {
    return takenSlugsIn(this.db, slugs, prefixes);
  }

  find(id: number): Promise<DocumentRow | null> {
    return this.db.document.findUnique({ where: { id } });
  }

  async list(f: ListFilter): Promise<{ rows: DocumentRow[]; total: number }> {
    const where: Prisma.DocumentWhereInput = {
      deletedAt: f.deleted ? { not: null } : null,
      ...(f.category !== undefined && { category: f.category }),
      ...(f.tag !== undefined && { tags: { has: f.tag } }),
      ...(f.status !== undefined && { status: f.status }),
      ...(f.authorAccountId !== undefined && { authorAccountId: f.authorAccountId }),
      ...(f.visibleTo !== undefined && { OR: [{ status: 'published' }, { authorAccountId: f.visibleTo }] }),
    };
    const [rows, counted] = await Promise.all([
      this.db.document.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], skip: f.offset, take: f.limit }),
      this.db.document.count({ where, take: EXACT_TOTAL_CAP + 1 }),
    ]);
    const total = await listTotal({ counted, cap: EXACT_TOTAL_CAP, skip: f.offset, pageSize: f.limit, rowsOnPage: rows.length, estimate: () => this.estimates.of(filterOnly(f)) });
    return { rows, total };
  }

  /** The planner's row estimate for the list's filter (no rows are read). */
  private async estimateMatching(f: Omit<ListFilter, 'offset' | 'limit'>): Promise<number> {
    const conds: Sql[] = [f.deleted ? sql`deleted_at IS NOT NULL` : sql`deleted_at IS NULL`];
    if (f.category !== undefined) conds.push(sql`category = ${f.category}`);
    if (f.tag !== undefined) conds.push(sql`tags @> ARRAY[${f.tag}]::text[]`);
    if (f.status !== undefined) conds.push(sql`status = ${f.status}`);
    if (f.authorAccountId !== undefined) conds.push(sql`author_account_id = ${f.authorAccountId}`);
    if (f.visibleTo !== undefined) conds.push(sql`(status = 'published' OR author_account_id = ${f.visibleTo})`);
    const plan = await this.db.$queryRaw<Array<Record<string, unknown>>>`EXPLAIN (FORMAT JSON) SELECT 1 FROM documents WHERE ${join(conds, ' AND ')}`;
    const raw = Object.values(plan[0] ?? {})[0];
    const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan?: { 'Plan Rows'?: number } }>;
    return Math.round(parsed?.[0]?.Plan?.['Plan Rows'] ?? 0);
  }

  revisions(documentId: number): Promise<RevisionRow[]> {
    return this.db.revision.findMany({ where: { documentId }, orderBy: { version: 'desc' } });
  }

  revision(documentId: number, version: number): Promise<RevisionRow | null> {
    return this.db.revision.findUnique({ where: { documentId_version: { documentId, version } } });
  }

  /** Published, not deleted documents in id order, a batch at a time. */
  async *published(batchSize: number): AsyncGenerator<DocumentRow[]> {
    let after = 0;
    for (;;) {
      const rows = await this.db.document.findMany({ where: { status: 'published', deletedAt: null, id: { gt: after } }, orderBy: { id: 'asc' }, take: batchSize });
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1].id;
    }
  }

  private async lock(tx: Tx, id: number): Promise<DocumentRow> {
    await tx.$queryRaw`SELECT id FROM documents WHERE id = ${id} FOR UPDATE`;
    const current = await tx.document.findUnique({ where: { id } });
    if (!current) throw documentNotFound(id);
    return current;
  }

  private async keepRevision(tx: Tx, doc: DocumentRow, editorAccountId: number): Promise<void> {
    await tx.revision.create({
      data: { documentId: doc.id, version: doc.version, title: doc.title, content: doc.content, category: doc.category, tags: doc.tags, authorAccountId: editorAccountId, status: doc.status },
    });
  }

  /**
   * The change's outbox event, in the change's transaction. Its count in the content analytics is
   * added when the event is published (OutboxRepo.claim), so concurrent changes never queue on the
   * same rollup rows inside their transactions.
   */
  private async writeEvent(tx: Tx, change: ChangeKind, doc: DocumentRow, accountId: number, opts?: { permanent?: boolean; version?: number; action?: 'restored' }): Promise<void> {
    const { subject, payload } = documentEvent(change, doc, accountId, opts);
    await tx.outboxEvent.create({ data: { subject, payload: payload as unknown as Prisma.InputJsonValue } });
  }
}

/** A `documents` row as plain `pg` returns it (timestamps read as UTC by the hot pool). */
interface DocumentSqlRow {
  id: number;
  slug: string;
  title: string;
  content: string;
  category: string;
  tags: string[];
  author_account_id: number;
  status: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const fromSql = (r: DocumentSqlRow): DocumentRow => ({
  id: r.id,
  slug: r.slug,
  title: r.title,
  content: r.content,
  category: r.category,
  tags: r.tags,
  authorAccountId: r.author_account_id,
  status: r.status,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

/** The filter without its page: the rows one estimate is about. */
function filterOnly({ offset: _offset, limit: _limit, ...filter }: ListFilter): Omit<ListFilter, 'offset' | 'limit'> {
  return filter;
}

/** What a transaction holding slug locks may do (DocumentsRepo.withSlugLocks). */
export interface SlugWriter {
  takenSlugs(slugs: string[], prefixes: string[]): Promise<Set<string>>;
  createMany(docs: DocumentFields[], authorAccountId: number): Promise<DocumentRow[]>;
}

type DocsTx = Parameters<Parameters<DocsDb['$transaction']>[0]>[0];

async function takenSlugsIn(db: Pick<DocsDb, 'document'> | DocsTx, slugs: string[], prefixes: string[]): Promise<Set<string>> {
  const rows = await db.document.findMany({
    where: { OR: [{ slug: { in: slugs } }, ...prefixes.map((p) => ({ slug: { startsWith: `${p}-` } }))] },
    select: { slug: true },
  });
  return new Set(rows.map((r) => r.slug));
}

/** The rows, their first revisions and their `created` events, in the order of `docs`: three set-based statements of `tx`. */
async function insertMany(tx: DocsTx, docs: DocumentFields[], authorAccountId: number): Promise<DocumentRow[]> {
    const inserted = await tx.$queryRaw<Array<{ id: number; slug: string; version: number; createdAt: Date; updatedAt: Date }>>`
      INSERT INTO documents (slug, title, content, category, tags, author_account_id, status, version, created_at, updated_at)
      SELECT x.slug, x.title, x.content, x.category, ARRAY(SELECT jsonb_array_elements_text(x.tags::jsonb)), ${authorAccountId}, x.status, 1, now(), now()
      FROM unnest(${docs.map((d) => d.slug)}::text[], ${docs.map((d) => d.title)}::text[], ${docs.map((d) => d.content)}::text[],
                  ${docs.map((d) => d.category)}::text[], ${docs.map((d) => JSON.stringify(d.tags))}::text[], ${docs.map((d) => d.status)}::text[])
           WITH ORDINALITY AS x(slug, title, content, category, tags, status, ord)
      ORDER BY x.ord
      RETURNING id, slug, version, created_at AS "createdAt", updated_at AS "updatedAt"`;
    const bySlug = new Map(inserted.map((r) => [r.slug, r]));
    const ordered: DocumentRow[] = docs.map((d) => {
      const r = bySlug.get(d.slug)!;
      return { ...d, id: r.id, version: r.version, authorAccountId, createdAt: r.createdAt, updatedAt: r.updatedAt, deletedAt: null };
    });
    const ids = ordered.map((d) => d.id);
    await tx.$executeRaw`
      INSERT INTO revisions (document_id, version, title, content, category, tags, author_account_id, created_at, status)
      SELECT id, version, title, content, category, tags, author_account_id, now(), status FROM documents WHERE id = ANY(${ids}::int[])`;
    const events = ordered.map((doc) => documentEvent('created', doc, authorAccountId));
    await tx.$executeRaw`
      INSERT INTO outbox_events (subject, payload)
      SELECT s, p::jsonb FROM unnest(${events.map((e) => e.subject)}::text[], ${events.map((e) => JSON.stringify(e.payload))}::text[]) WITH ORDINALITY AS x(s, p, ord)
      ORDER BY x.ord`;
    return ordered;
}

function slugTakenOrRethrow(err: unknown): never {
  throw isUniqueViolation(err) || isRawUniqueViolation(err) ? new AppError(ErrorCode.AlreadyExists, 'another request took one of these slugs meanwhile; send the request again') : err;
}
