import { Client } from 'pg';
import { AppError, ErrorCode } from '@tollgate/kit';
import type { Document } from '@tollgate/protos/docs';
import { startDocs, type DocsHarness } from './docs-harness';
import { EXACT_TOTAL_CAP } from '../../src/repo/documents-repo';

const alice = { accountId: 1, isAdmin: false, apiKeyId: 0 };
const bob = { accountId: 2, isAdmin: false, apiKeyId: 0 };
const admin = { accountId: 99, isAdmin: true, apiKeyId: 0 };
const base = { content: '# Hello\n\nSome text.', category: 'guides', tags: ['intro'], status: '', slug: '' };

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected the call to fail'); }, (e: unknown) => e as AppError);

// The docs service over real gRPC and PostgreSQL: documents, revisions, trash, visibility.
describe('docs service', () => {
  let h: DocsHarness | null;
  beforeAll(async () => {
    h = await startDocs();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('creates a published document at version 1 with a slug from its title and a first revision', async () => {
    if (!h) return;
    const doc = await h.client.createDocument({ actor: alice, title: 'Getting Started: Über Guide', ...base });
    expect(doc).toMatchObject({ title: 'Getting Started: Über Guide', slug: 'getting-started-uber-guide', status: 'published', version: 1, authorAccountId: 1, deletedAt: '', tags: ['intro'] });
    expect(new Date(doc.createdAt).getTime()).not.toBeNaN();
    const { revisions } = await h.client.listRevisions({ actor: alice, id: doc.id });
    expect(revisions.map((r) => r.version)).toEqual([1]);
  });

  it('gives a second document with the same title the next free slug, and refuses a taken explicit slug', async () => {
    if (!h) return;
    const a = await h.client.createDocument({ actor: alice, title: 'Same Title', ...base });
    const b = await h.client.createDocument({ actor: alice, title: 'Same Title', ...base });
    expect([a.slug, b.slug]).toEqual(['same-title', 'same-title-2']);
    const err = await failure(h.client.createDocument({ actor: alice, title: 'Other', ...base, slug: 'same-title' }));
    expect(err.code).toBe(ErrorCode.AlreadyExists);
    expect(err.message).toContain('same-title');
  });

  it('validates fields in the service too', async () => {
    if (!h) return;
    const blank = await failure(h.client.createDocument({ actor: alice, title: '   ', ...base }));
    expect(blank.code).toBe(ErrorCode.InvalidArgument);
    expect(blank.details.issues?.[0].loc).toEqual(['body', 'title']);
    const status = await failure(h.client.createDocument({ actor: alice, title: 'x', ...base, status: 'archived' }));
    expect(status.message).toContain('status');
    const slug = await failure(h.client.createDocument({ actor: alice, title: 'x', ...base, slug: 'Not A Slug' }));
    expect(slug.details.issues?.[0].loc).toEqual(['body', 'slug']);
    const noActor = await failure(h.client.getDocument({ id: 1 }));
    expect(noActor.code).toBe(ErrorCode.Unauthenticated);
  });

  it('keeps a revision for every update, reads one, and restores one as a new version', async () => {
    if (!h) return;
    const doc = await h.client.createDocument({ actor: alice, title: 'Revisions', ...base });
    const v2 = await h.client.updateDocument({ actor: bob, id: doc.id, title: 'Revisions, second', content: 'changed', tags: ['a', 'b'], tagsSet: true });
    expect(v2).toMatchObject({ version: 2, title: 'Revisions, second', content: 'changed', tags: ['a', 'b'], authorAccountId: 1 });
    const v3 = await h.client.updateDocument({ actor: alice, id: doc.id, category: 'reference', tags: [], tagsSet: false });
    expect(v3).toMatchObject({ version: 3, category: 'reference', tags: ['a', 'b'] });

    const { revisions } = await h.client.listRevisions({ actor: alice, id: doc.id });
    expect(revisions.map((r) => [r.version, r.authorAccountId])).toEqual([[3, 1], [2, 2], [1, 1]]);
    const first = await h.client.getRevision({ actor: alice, documentId: doc.id, version: 1 });
    expect(first).toMatchObject({ title: 'Revisions', content: base.content, category: 'guides', tags: ['intro'] });

    const restored = await h.client.restoreRevision({ actor: alice, documentId: doc.id, version: 1 });
    expect(restored).toMatchObject({ version: 4, title: 'Revisions', content: base.content, category: 'guides', tags: ['intro'] });
    const missing = await failure(h.client.getRevision({ actor: alice, documentId: doc.id, version: 40 }));
    expect(missing.code).toBe(ErrorCode.NotFound);
  });

  it('keeps the version when an update changes nothing, and refuses a stale expected version', async () => {
    if (!h) return;
    const doc = await h.client.createDocument({ actor: alice, title: 'Stable', ...base });
    const same = await h.client.updateDocument({ actor: alice, id: doc.id, title: 'Stable', tags: ['intro'], tagsSet: true });
    expect(same.version).toBe(1);
    await h.client.updateDocument({ actor: alice, id: doc.id, content: 'new', tags: [], tagsSet: false, expectedVersion: 1 });
    const stale = await failure(h.client.updateDocument({ actor: bob, id: doc.id, content: 'late', tags: [], tagsSet: false, expectedVersion: 1 }));
    expect(stale.code).toBe(ErrorCode.Conflict);
    expect(stale.message).toContain('version 2');
  });

  it('shows a draft only to its author and admins', async () => {
    if (!h) return;
    const draft = await h.client.createDocument({ actor: alice, title: 'Secret draft', ...base, status: 'draft' });
    expect((await h.client.getDocument({ actor: alice, id: draft.id })).status).toBe('draft');
    expect((await h.client.getDocument({ actor: admin, id: draft.id })).id).toBe(draft.id);
    const hidden = await failure(h.client.getDocument({ actor: bob, id: draft.id }));
    expect(hidden.code).toBe(ErrorCode.NotFound);
    const edit = await failure(h.client.updateDocument({ actor: bob, id: draft.id, title: 'mine now', tags: [], tagsSet: false }));
    expect(edit.code).toBe(ErrorCode.NotFound);
    const bobs = await h.client.listDocuments({ actor: bob, page: { page: 1, pageSize: 100 }, category: '', tag: '', status: 'draft', authorAccountId: 0, deleted: false, summary: false });
    expect(bobs.documents.map((d) => d.id)).not.toContain(draft.id);
  });

  it('moves a document to the trash and back, and deletes it permanently only for its author or an admin', async () => {
    if (!h) return;
    const doc = await h.client.createDocument({ actor: alice, title: 'Trash me', ...base });
    const trashed = await h.client.deleteDocument({ actor: bob, id: doc.id, permanent: false });
    expect(trashed.deletedAt).not.toBe('');
    expect(trashed.version).toBe(2);
    const gone = await failure(h.client.getDocument({ actor: alice, id: doc.id }));
    expect(gone.code).toBe(ErrorCode.NotFound);
    expect(gone.message).toContain('trash');
    const trash = await h.client.listDocuments({ actor: alice, page: { page: 1, pageSize: 100 }, category: '', tag: '', status: '', authorAccountId: 0, deleted: true, summary: false });
    expect(trash.documents.map((d) => d.id)).toContain(doc.id);

    const back = await h.client.restoreDocument({ actor: alice, id: doc.id });
    expect(back).toMatchObject({ deletedAt: '', version: 3 });
    const again = await failure(h.client.restoreDocument({ actor: alice, id: doc.id }));
    expect(again.code).toBe(ErrorCode.FailedPrecondition);

    const notAuthor = await failure(h.client.deleteDocument({ actor: bob, id: doc.id, permanent: true }));
    expect(notAuthor.code).toBe(ErrorCode.PermissionDenied);
    await h.client.deleteDocument({ actor: alice, id: doc.id, permanent: true });
    const destroyed = await failure(h.client.getDocument({ actor: admin, id: doc.id }));
    expect(destroyed.message).toBe(`document ${doc.id} not found`);
    const revisions = await failure(h.client.listRevisions({ actor: admin, id: doc.id }));
    expect(revisions.code).toBe(ErrorCode.NotFound);
  });

  it('lists with filters and paging totals', async () => {
    if (!h) return;
    const author = { accountId: 500, isAdmin: false, apiKeyId: 0 };
    for (let i = 0; i < 5; i++) {
      await h.client.createDocument({ actor: author, title: `Filter ${i}`, ...base, content: i === 0 ? 'x'.repeat(1000) : base.content, category: i < 3 ? 'faq' : 'howto', tags: i % 2 ? ['odd'] : ['even'] });
    }
    const q = { actor: bob, category: '', tag: '', status: '', authorAccountId: 500, deleted: false, summary: true };
    const page1 = await h.client.listDocuments({ ...q, page: { page: 1, pageSize: 2 } });
    expect(page1.page).toEqual({ page: 1, pageSize: 2, total: 5 });
    expect(page1.documents.map((d) => d.title)).toEqual(['Filter 4', 'Filter 3']);
    const page3 = await h.client.listDocuments({ ...q, page: { page: 3, pageSize: 2 } });
    expect(page3.documents.map((d) => d.title)).toEqual(['Filter 0']);
    expect(page3.documents[0].content).toHaveLength(300);
    const faqOdd = await h.client.listDocuments({ ...q, category: 'faq', tag: 'odd', page: { page: 1, pageSize: 10 } });
    expect(faqOdd.documents.map((d) => d.title)).toEqual(['Filter 1']);
    const none = await h.client.listDocuments({ ...q, status: 'draft', page: { page: 1, pageSize: 10 } });
    expect(none.page?.total).toBe(0);
  });

  it('counts exactly up to EXACT_TOTAL_CAP (100) matching documents and estimates above, on the same newest-first pages', async () => {
    if (!h) return;
    const pg = new Client({ connectionString: h.databaseUrl });
    await pg.connect();
    try {
      await pg.query(
        `INSERT INTO documents (slug, title, content, category, tags, author_account_id, status, version, created_at, updated_at)
         SELECT 'bulk-' || g, 'Bulk ' || g, 'text', CASE WHEN g % 500 = 0 THEN 'rare' ELSE 'bulk' END, ARRAY['bulk'], 700, 'published', 1,
                now() - interval '1 day' + g * interval '1 millisecond', now() - interval '1 day' + g * interval '1 millisecond'
         FROM generate_series(1, 1200) g`,
      );
      await pg.query(
        `INSERT INTO documents (slug, title, content, category, tags, author_account_id, status, version, created_at, updated_at)
         SELECT 'capped-' || g, 'Capped ' || g, 'text', 'bulk', ARRAY['bulk'], 701, 'published', 1, now(), now()
         FROM generate_series(1, $1::int) g`,
        [EXACT_TOTAL_CAP],
      );
      await pg.query('ANALYZE documents'); // as autovacuum would after such a load
    } finally {
      await pg.end();
    }
    const q = { actor: bob, tag: '', status: '', authorAccountId: 700, deleted: false, summary: true };
    const page1 = await h.client.listDocuments({ ...q, category: '', page: { page: 1, pageSize: 3 } });
    expect(page1.documents.map((d) => d.title)).toEqual(['Bulk 1200', 'Bulk 1199', 'Bulk 1198']);
    expect(page1.page!.total).toBeGreaterThan(1_000);
    const rare = await h.client.listDocuments({ ...q, category: 'rare', page: { page: 1, pageSize: 10 } });
    expect(rare.page!.total).toBe(2);
    expect(rare.documents.map((d) => d.title)).toEqual(['Bulk 1000', 'Bulk 500']);
    // Exactly the cap is still exact.
    const capped = await h.client.listDocuments({ ...q, authorAccountId: 701, category: '', page: { page: 1, pageSize: 3 } });
    expect(capped.page!.total).toBe(EXACT_TOTAL_CAP);
    const last = await h.client.listDocuments({ ...q, category: '', page: { page: 12, pageSize: 100 } });
    expect(last.documents.at(-1)!.title).toBe('Bulk 1');
    expect(last.page!.total).toBeGreaterThanOrEqual(1_200);
  });

  it('streams every published live document, and no drafts or trashed ones', async () => {
    if (!h) return;
    const draft = await h.client.createDocument({ actor: alice, title: 'Stream draft', ...base, status: 'draft' });
    const trashed = await h.client.createDocument({ actor: alice, title: 'Stream trashed', ...base });
    await h.client.deleteDocument({ actor: alice, id: trashed.id, permanent: false });
    const live = await h.client.createDocument({ actor: alice, title: 'Stream live', ...base });
    const ids: number[] = [];
    const stream = h.client.raw.streamAllDocuments({});
    for await (const doc of stream) ids.push((doc as Document).id);
    expect(ids).toContain(live.id);
    expect(ids).not.toContain(draft.id);
    expect(ids).not.toContain(trashed.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });
});
