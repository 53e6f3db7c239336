import type { DocumentChange as ChangeKind } from '@tollgate/kit';
import type { DocsDb } from '../db';
import type { Prisma } from '../generated/prisma/client';
import type { DocumentFields, DocumentRow, RevisionRow } from '../domain/document';
import { documentEvent } from '../domain/events';
import { documentNotFound, slugTaken } from '../domain/errors';

type Tx = Prisma.TransactionClient;

/** What a use case decides about the current row; `null` means nothing changes. */
export interface PlannedChange {
  fields: Partial<DocumentFields> & { deletedAt?: Date | null };
  event: Exclude<ChangeKind, 'created'>;
  /** Keep a revision of the new version (content updates do; trash moves do not). */
  revision: boolean;
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

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === 'P2002';

/** Documents, their revisions and the outbox: every change and its event commit together. */
export class DocumentsRepo {
  constructor(
    private readonly db: DocsDb,
    /** Called after a change committed (wakes the outbox relay). */
    private readonly committed: () => void = () => {},
  ) {}

  async create(fields: DocumentFields, authorAccountId: number): Promise<DocumentRow> {
    const row = await this.db
      .$transaction(async (tx) => {
        const doc = await tx.document.create({ data: { ...fields, authorAccountId } });
        await this.keepRevision(tx, doc, authorAccountId);
        await this.writeEvent(tx, 'created', doc);
        return doc;
      }, TX_OPTIONS)
      .catch((err: unknown) => {
        throw isUniqueViolation(err) ? slugTaken(fields.slug) : err;
      });
    this.committed();
    return row;
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
        await this.writeEvent(tx, planned.event, doc);
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
  async destroy(id: number, check: (current: DocumentRow) => void): Promise<DocumentRow> {
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.lock(tx, id);
      check(current);
      await tx.revision.deleteMany({ where: { documentId: id } });
      await tx.document.delete({ where: { id } });
      await this.writeEvent(tx, 'deleted', current, { permanent: true, version: current.version + 1 });
      return current;
    }, TX_OPTIONS);
    this.committed();
    return row;
  }

  find(id: number): Promise<DocumentRow | null> {
    return this.db.document.findUnique({ where: { id } });
  }

  async slugsLike(base: string): Promise<Set<string>> {
    const rows = await this.db.document.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } });
    return new Set(rows.map((r) => r.slug));
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
    const [rows, total] = await Promise.all([
      this.db.document.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], skip: f.offset, take: f.limit }),
      this.db.document.count({ where }),
    ]);
    return { rows, total };
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
      data: { documentId: doc.id, version: doc.version, title: doc.title, content: doc.content, category: doc.category, tags: doc.tags, authorAccountId: editorAccountId },
    });
  }

  private async writeEvent(tx: Tx, change: ChangeKind, doc: DocumentRow, opts?: { permanent?: boolean; version?: number }): Promise<void> {
    const { subject, payload } = documentEvent(change, doc, opts);
    await tx.outboxEvent.create({ data: { subject, payload: payload as unknown as Prisma.InputJsonValue } });
  }
}
