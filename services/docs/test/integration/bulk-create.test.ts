import { AppError, ErrorCode, HotPool } from '@tollgate/kit';
import { createDocsDb } from '../../src/db';
import { DocumentsRepo } from '../../src/repo/documents-repo';
import { eventually, startDocs, type DocsHarness } from './docs-harness';

const alice = { accountId: 1, isAdmin: false, apiKeyId: 0 };
const item = (title: string, over: Record<string, unknown> = {}) => ({ title, content: `# ${title}\n\nBody of ${title}.`, category: 'guides', tags: ['bulk', 'bulk', ' imported '], status: '', slug: '', ...over });

// Bulk creation in the docs service over real gRPC and PostgreSQL.
describe('docs service: bulk create', () => {
  let h: DocsHarness | null;
  beforeAll(async () => {
    h = await startDocs();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('creates every valid item with its revision and created event, and refuses the others by index', async () => {
    if (!h) return;
    const { results } = await h.client.bulkCreateDocuments({
      actor: alice,
      documents: [item('Bulk Alpha'), item('', {}), item('Bulk Alpha'), item('Bulk Beta', { slug: 'bulk-given' }), item('Bulk Gamma', { slug: 'bulk-given' }), item('Bulk Delta', { status: 'archived' }), item('Bulk Epsilon', { slug: 'bulk-alpha' })],
    }, { timeoutMs: 60_000 });
    expect(results.map((r) => [r.index, r.errorCode])).toEqual([
      [0, ''],
      [1, ErrorCode.InvalidArgument],
      [2, ''],
      [3, ''],
      [4, ErrorCode.AlreadyExists],
      [5, ErrorCode.InvalidArgument],
      [6, ''],
    ]);
    // The given slug bulk-alpha wins over the derived one of the same name.
    expect(results.filter((r) => !r.errorCode).map((r) => r.slug)).toEqual(['bulk-alpha-2', 'bulk-alpha-3', 'bulk-given', 'bulk-alpha']);
    expect(results[1].issues[0].loc).toEqual(['body', 'title']);
    expect(results[4].errorMessage).toContain('bulk-given');

    const doc = await h.client.getDocument({ actor: alice, id: results[0].id });
    expect(doc).toMatchObject({ title: 'Bulk Alpha', content: '# Bulk Alpha\n\nBody of Bulk Alpha.', category: 'guides', tags: ['bulk', 'imported'], status: 'published', version: 1, authorAccountId: 1 });
    expect(doc.createdAt).toBe(results[0].createdAt);
    const { revisions } = await h.client.listRevisions({ actor: alice, id: results[0].id });
    expect(revisions).toEqual([expect.objectContaining({ version: 1, title: 'Bulk Alpha', content: doc.content, tags: ['bulk', 'imported'], authorAccountId: 1 })]);

    const created = results.filter((r) => !r.errorCode).map((r) => r.id);
    const events = await eventually(() => {
      const mine = h!.events.filter((e) => created.includes(e.id));
      return mine.length === created.length ? mine : undefined;
    }, 'a created event per document');
    const alpha = events.find((e) => e.id === results[0].id)!;
    expect(alpha).toMatchObject({ change: 'created', version: 1, document: { id: results[0].id, slug: 'bulk-alpha-2', title: 'Bulk Alpha', content: doc.content, tags: ['bulk', 'imported'], status: 'published', author_account_id: 1, created_at: doc.createdAt, updated_at: doc.updatedAt, deleted_at: null } });
  });

  it('refuses an empty or oversized batch as a whole', async () => {
    if (!h) return;
    const empty = await h.client.bulkCreateDocuments({ actor: alice, documents: [] }).catch((e: AppError) => e);
    expect((empty as AppError).code).toBe(ErrorCode.InvalidArgument);
    const many = await h.client.bulkCreateDocuments({ actor: alice, documents: Array.from({ length: 1_001 }, (_, i) => item(`n${i}`)) }, { timeoutMs: 60_000 }).catch((e: AppError) => e);
    expect((many as AppError).code).toBe(ErrorCode.InvalidArgument);
  });

  it('fails the whole transaction with a slug conflict when a slug was taken meanwhile, leaving nothing behind', async () => {
    if (!h) return;
    const db = createDocsDb(h.databaseUrl);
    const hot = new HotPool(h.databaseUrl, { max: 1, maxWaiting: 10 });
    try {
      const repo = new DocumentsRepo(db, hot);
      await h.client.createDocument({ actor: alice, ...item('Raced'), slug: 'raced-slug' });
      const fields = { title: 'X', content: 'x', category: '', tags: [], status: 'published' as const };
      const err = await repo.createMany([{ ...fields, slug: 'fresh-one' }, { ...fields, slug: 'raced-slug' }], 1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe(ErrorCode.AlreadyExists);
      expect(await db.document.count({ where: { slug: 'fresh-one' } })).toBe(0);
    } finally {
      await hot.end();
      await db.$disconnect();
    }
  });
});
