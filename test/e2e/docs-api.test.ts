import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, expectEnvelope } from './docs-support';

// The documents API end to end over HTTPS: gateway → docs service → PostgreSQL.
describe('docs API: documents', () => {
  let t: TestSystem | null;
  let writer: { id: number; token: string };
  let other: { id: number; token: string };
  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    writer = await docsUser(t, { docs_read: true, docs_write: true });
    other = await docsUser(t, { docs_read: true, docs_write: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('creates, reads, lists, updates and deletes a document in the envelope', async () => {
    if (!t) return;
    const created = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'API Guide', content: '# API\n\nUse the **API**.', category: 'guides', tags: ['api'] });
    expectEnvelope(created, 201);
    const id = created.body.data.id;
    expect(id).toEqual(expect.any(Number));
    expect(created.body.data).toMatchObject({ slug: 'api-guide', title: 'API Guide', category: 'guides', tags: ['api'], status: 'published', author_id: writer.id, version: 1, deleted_at: null });

    const got = await call(t, 'GET', `/api/v1/documents/${id}`, writer.token);
    expectEnvelope(got, 200);
    expect(got.body.data.content).toBe('# API\n\nUse the **API**.');

    const listed = await call(t, 'GET', `/api/v1/documents?page=1&limit=10&category=guides&tag=api&author=${writer.id}`, writer.token);
    expectEnvelope(listed, 200);
    expect(listed.body.data).toMatchObject({ page: 1, limit: 10, total: 1, total_pages: 1 });
    expect(listed.body.data.documents[0]).toMatchObject({ id, title: 'API Guide', excerpt: '# API\n\nUse the **API**.' });
    expect(listed.body.data.documents[0]).not.toHaveProperty('content');

    const updated = await call(t, 'PUT', `/api/v1/documents/${id}`, other.token, { title: 'API Guide v2', content: 'New text' });
    expectEnvelope(updated, 200);
    expect(updated.body.data).toMatchObject({ version: 2, title: 'API Guide v2', content: 'New text', tags: ['api'], author_id: writer.id });

    const trashed = await call(t, 'DELETE', `/api/v1/documents/${id}`, writer.token);
    expectEnvelope(trashed, 200);
    expect(trashed.body.data).toMatchObject({ id, permanent: false, deleted_at: expect.any(String) });
    expect(trashed.body.message).toContain(`/api/v1/documents/${id}/restore`);
    const gone = await call(t, 'GET', `/api/v1/documents/${id}`, writer.token);
    expectEnvelope(gone, 404);
    expect(gone.body.message).toContain('trash');
  });

  it('serves the /api/ prefix as the same API', async () => {
    if (!t) return;
    const created = await call(t, 'POST', '/api/documents', writer.token, { title: 'Alias', content: 'x', category: 'misc' });
    expectEnvelope(created, 201);
    const got = await call(t, 'GET', `/api/documents/${created.body.data.id}`, writer.token);
    expect(got.body.data.title).toBe('Alias');
    const list = await call(t, 'GET', '/api/documents?page=1&limit=5', writer.token);
    expect(Array.isArray(list.body.data.documents)).toBe(true);
  });

  it('keeps revisions, reads one and restores one as a new version', async () => {
    if (!t) return;
    const id = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Rev', content: 'one', category: 'c' })).body.data.id;
    await call(t, 'PUT', `/api/v1/documents/${id}`, writer.token, { content: 'two' });
    await call(t, 'PUT', `/api/v1/documents/${id}`, other.token, { content: 'three', tags: ['x'] });

    const revisions = await call(t, 'GET', `/api/v1/documents/${id}/revisions`, writer.token);
    expectEnvelope(revisions, 200);
    expect(revisions.body.data.revisions.map((r: any) => [r.version, r.content, r.editor_id])).toEqual([
      [3, 'three', other.id],
      [2, 'two', writer.id],
      [1, 'one', writer.id],
    ]);
    const first = await call(t, 'GET', `/api/v1/documents/${id}/revisions/1`, writer.token);
    expect(first.body.data).toMatchObject({ document_id: id, version: 1, title: 'Rev', content: 'one', tags: [] });

    const restored = await call(t, 'POST', `/api/v1/documents/${id}/revisions/1/restore`, writer.token);
    expectEnvelope(restored, 200);
    expect(restored.body.data).toMatchObject({ version: 4, content: 'one', tags: [] });
    expect(restored.body.message).toBe('revision 1 restored as version 4');
    const missing = await call(t, 'GET', `/api/v1/documents/${id}/revisions/99`, writer.token);
    expectEnvelope(missing, 404);
    expect(missing.body.message).toBe(`document ${id} has no revision 99`);
  });

  it('cuts list excerpts on whole characters: no half of an emoji at the end', async () => {
    if (!t) return;
    const id = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Emoji excerpt', content: 'a' + '😀'.repeat(200), category: 'emoji-cut' })).body.data.id;
    const listed = await call(t, 'GET', '/api/v1/documents?category=emoji-cut&limit=5', writer.token);
    const item = listed.body.data.documents.find((d: any) => d.id === id);
    expect(item.excerpt).toBe('a' + '😀'.repeat(149));
  });

  it("keeps a draft's versions to its author and admins after it is published", async () => {
    if (!t) return;
    const id = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Memo to publish', content: 'DRAFT-ONLY secret', category: 'c', status: 'draft' })).body.data.id;
    await call(t, 'PUT', `/api/v1/documents/${id}`, writer.token, { content: 'still a draft' });
    await call(t, 'PUT', `/api/v1/documents/${id}`, writer.token, { content: 'public memo', status: 'published' });
    await call(t, 'PUT', `/api/v1/documents/${id}`, other.token, { content: 'public memo, edited' });

    const theirs = await call(t, 'GET', `/api/v1/documents/${id}/revisions`, other.token);
    expect(theirs.body.data.revisions.map((r: any) => [r.version, r.content])).toEqual([
      [4, 'public memo, edited'],
      [3, 'public memo'],
    ]);
    for (const version of [1, 2]) {
      expectEnvelope(await call(t, 'GET', `/api/v1/documents/${id}/revisions/${version}`, other.token), 404);
      expectEnvelope(await call(t, 'POST', `/api/v1/documents/${id}/revisions/${version}/restore`, other.token), 404);
    }
    expect((await call(t, 'GET', `/api/v1/documents/${id}`, other.token)).body.data.content).toBe('public memo, edited');
    // The author and the admin see the whole history.
    for (const token of [writer.token, t.adminToken]) {
      expect((await call(t, 'GET', `/api/v1/documents/${id}/revisions`, token)).body.data.revisions.map((r: any) => r.version)).toEqual([4, 3, 2, 1]);
    }
    expect((await call(t, 'GET', `/api/v1/documents/${id}/revisions/1`, writer.token)).body.data.content).toBe('DRAFT-ONLY secret');
  });

  it('restores from the trash and deletes permanently (author only)', async () => {
    if (!t) return;
    const id = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Trash cycle', content: 'x' })).body.data.id;
    await call(t, 'DELETE', `/api/v1/documents/${id}`, writer.token);
    const trash = await call(t, 'GET', '/api/v1/documents?deleted=true&limit=100', writer.token);
    expect(trash.body.data.documents.map((d: any) => d.id)).toContain(id);

    const restored = await call(t, 'POST', `/api/v1/documents/${id}/restore`, writer.token);
    expectEnvelope(restored, 200);
    expect(restored.body.data.deleted_at).toBeNull();
    const notTrashed = await call(t, 'POST', `/api/v1/documents/${id}/restore`, writer.token);
    expectEnvelope(notTrashed, 409);
    expect(notTrashed.body.message).toContain('not in the trash');

    const notAuthor = await call(t, 'DELETE', `/api/v1/documents/${id}?permanent=true`, other.token);
    expectEnvelope(notAuthor, 403);
    const destroyed = await call(t, 'DELETE', `/api/v1/documents/${id}?permanent=true`, writer.token);
    expectEnvelope(destroyed, 200);
    expect(destroyed.body.data.permanent).toBe(true);
    const gone = await call(t, 'GET', `/api/v1/documents/${id}`, writer.token);
    expectEnvelope(gone, 404);
    expect(gone.body.message).toBe(`document ${id} not found`);
  });

  it('refuses a stale version with 409 and a taken slug with 409', async () => {
    if (!t) return;
    const doc = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Versioned', content: 'a', slug: 'versioned-doc' })).body.data;
    const ok = await call(t, 'PUT', `/api/v1/documents/${doc.id}`, writer.token, { content: 'b', version: 1 });
    expect(ok.body.data.version).toBe(2);
    const stale = await call(t, 'PUT', `/api/v1/documents/${doc.id}`, other.token, { content: 'c', version: 1 });
    expectEnvelope(stale, 409);
    expect(stale.body.message).toContain('at version 2');
    const taken = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Other', content: 'a', slug: 'versioned-doc' });
    expectEnvelope(taken, 409);
    expect(taken.body.message).toContain('versioned-doc');
  });
});
