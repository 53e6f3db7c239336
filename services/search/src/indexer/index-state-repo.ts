import type { SearchDb } from '../db';

/** The last document version applied to the index, per document: what makes event handling idempotent and ordered. */
export class IndexStateRepo {
  constructor(private readonly db: SearchDb) {}

  async version(documentId: number): Promise<number | undefined> {
    const row = await this.db.indexedDocument.findUnique({ where: { documentId } });
    return row?.version;
  }

  async record(documentId: number, version: number): Promise<void> {
    await this.db.indexedDocument.upsert({ where: { documentId }, create: { documentId, version }, update: { version } });
  }

  /** Every recorded version (loaded once at start). */
  async all(): Promise<Array<{ id: number; version: number }>> {
    const rows = await this.db.indexedDocument.findMany({ select: { documentId: true, version: true } });
    return rows.map((r) => ({ id: r.documentId, version: r.version }));
  }

  /** Records many at once, never lowering a version already recorded. */
  async recordMany(entries: Array<{ id: number; version: number }>): Promise<void> {
    if (entries.length === 0) return;
    const ids = entries.map((e) => e.id);
    const versions = entries.map((e) => e.version);
    await this.db.$executeRaw`
      INSERT INTO indexed_documents (document_id, version, updated_at)
      SELECT d, v, now() FROM unnest(${ids}::int[], ${versions}::int[]) AS t(d, v)
      ON CONFLICT (document_id) DO UPDATE SET version = GREATEST(indexed_documents.version, EXCLUDED.version), updated_at = now()`;
  }
}
