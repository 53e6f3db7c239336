import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, expectEnvelope } from './docs-support';

// The documents API's refusals: authentication, permissions, plain HTTP and bad input, all in the envelope.
describe('docs API: errors and permissions', () => {
  let t: TestSystem | null;
  let writer: { id: number; token: string };
  let reader: { id: number; token: string };
  let nobody: { id: number; token: string };
  let docId: number;
  beforeAll(async () => {
    t = await startTestSystem({ BODY_LIMIT_BYTES: String(64 * 1024) });
    if (!t) return;
    writer = await docsUser(t, { docs_read: true, docs_write: true });
    reader = await docsUser(t, { docs_read: true });
    nobody = await docsUser(t, {});
    docId = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Existing', content: 'x' })).body.data.id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers a missing or unknown token with 401 in the envelope', async () => {
    if (!t) return;
    const missing = await call(t, 'GET', '/api/v1/documents', undefined);
    expectEnvelope(missing, 401);
    const unknown = await call(t, 'GET', '/api/v1/documents', 'tg-not-a-real-token-000000000000');
    expectEnvelope(unknown, 401);
  });

  it('refuses a body that is not JSON with 415 in the envelope, after authentication; JSON with a charset or a +json type is fine', async () => {
    if (!t) return;
    const send = (contentType: string | undefined, body: string, token = writer.token) =>
      t!.httpsFetch(`${t!.https}/api/v1/documents`, { method: 'POST', headers: { ...(contentType && { 'content-type': contentType }), ...(token && { authorization: `Bearer ${token}` }) }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const json = JSON.stringify({ title: 'Typed', content: 'x' });
    for (const [type, body] of [['text/plain', json], ['application/xml', '<doc/>'], ['application/x-www-form-urlencoded', 'title=formdoc&content=hello'], [undefined, json]] as const) {
      const r = await send(type, body);
      expect({ type, status: r.status }).toEqual({ type, status: 415 });
      expect(r.body).toMatchObject({ code: 415, message: expect.stringContaining('application/json'), data: {} });
    }
    expect((await send('text/plain', json, '')).status).toBe(401);
    expect((await send('application/json; charset=utf-8', json)).status).toBe(201);
    expect((await send('application/vnd.tollgate+json', JSON.stringify({ title: 'Vendor', content: 'x' }))).status).toBe(201);
    // A request without a body needs no type.
    expectEnvelope(await t.httpsFetch(`${t.https}/api/v1/documents/${docId}/revisions/1/restore`, { method: 'POST', headers: { authorization: `Bearer ${writer.token}` } }).then(async (r) => ({ status: r.status, body: await r.json(), text: '', headers: r.headers }) as any), 200);
  });

  it('counts tags after dropping duplicates: 22 with 2 repeated make 20 (201), 21 distinct are a 422', async () => {
    if (!t) return;
    const twenty = Array.from({ length: 20 }, (_, i) => `tag${i}`);
    const created = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Tagged', content: 'x', tags: [...twenty, 'tag3', ' tag7 '] });
    expectEnvelope(created, 201);
    expect(created.body.data.tags).toEqual(twenty);
    const tooMany = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Over-tagged', content: 'x', tags: [...twenty, 'tag20'] });
    expectEnvelope(tooMany, 422);
    expect(tooMany.body.data.errors[0].loc).toEqual(['body', 'tags']);
  });

  it('lets docs_read read but not write, and neither without docs_read', async () => {
    if (!t) return;
    expectEnvelope(await call(t, 'GET', `/api/v1/documents/${docId}`, reader.token), 200);
    expectEnvelope(await call(t, 'GET', `/api/v1/documents/${docId}/revisions`, reader.token), 200);
    const write = await call(t, 'POST', '/api/v1/documents', reader.token, { title: 'No', content: 'x' });
    expectEnvelope(write, 403);
    expect(write.body.message).toContain('docs_write');
    expectEnvelope(await call(t, 'PUT', `/api/v1/documents/${docId}`, reader.token, { title: 'No' }), 403);
    expectEnvelope(await call(t, 'DELETE', `/api/v1/documents/${docId}`, reader.token), 403);
    expectEnvelope(await call(t, 'POST', `/api/v1/documents/${docId}/revisions/1/restore`, reader.token), 403);
    const trash = await call(t, 'GET', '/api/v1/documents?deleted=true', reader.token);
    expectEnvelope(trash, 403);
    expect(trash.body.message).toContain('trash');
    const none = await call(t, 'GET', '/api/v1/documents', nobody.token);
    expectEnvelope(none, 403);
    expect(none.body.message).toContain('docs_read');
  });

  it('hides drafts from everyone but their author', async () => {
    if (!t) return;
    const draft = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Draft', content: 'x', status: 'draft' })).body.data;
    expect((await call(t, 'GET', `/api/v1/documents/${draft.id}`, writer.token)).body.data.status).toBe('draft');
    const hidden = await call(t, 'GET', `/api/v1/documents/${draft.id}`, reader.token);
    expectEnvelope(hidden, 404);
    const list = await call(t, 'GET', '/api/v1/documents?status=draft', reader.token);
    expect(list.body.data.total).toBe(0);
    expect((await call(t, 'GET', `/api/v1/documents/${draft.id}`, t.adminToken)).status).toBe(200);
  });

  it('rejects plain HTTP with a clear envelope error', async () => {
    if (!t) return;
    const res = await fetch(`${t.http}/api/v1/documents`, { headers: { authorization: `Bearer ${writer.token}` } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(403);
    expect(body).toMatchObject({ code: 403, data: {} });
    expect(body.message).toMatch(/HTTPS is required/);
  });

  it('takes a document at its content limit in any script: 500,000 CJK characters are 1.5 MB of JSON', async () => {
    if (!t) return;
    const content = '文'.repeat(500_000);
    const created = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Long CJK document', content });
    expectEnvelope(created, 201);
    const updated = await call(t, 'PUT', `/api/v1/documents/${created.body.data.id}`, writer.token, { content: `${content.slice(1)}字` });
    expectEnvelope(updated, 200);
    const over = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Too long', content: `${content}文` });
    expectEnvelope(over, 422);
  }, 60_000);

  it('answers malformed JSON with 422 in the envelope', async () => {
    if (!t) return;
    const r = await call(t, 'POST', '/api/v1/documents', writer.token, '{"title": "x", ');
    expectEnvelope(r, 422);
    expect(r.body.message).toContain('malformed JSON');
  });

  it('names each wrong field: types, limits, unknown fields, empty updates', async () => {
    if (!t) return;
    const types = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 42, content: ['x'], tags: 'a' });
    expectEnvelope(types, 422);
    const locs = types.body.data.errors.map((e: any) => e.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.title', 'body.content', 'body.tags']));
    const missing = await call(t, 'POST', '/api/v1/documents', writer.token, { content: 'no title' });
    expect(missing.body.data.errors[0].loc).toEqual(['body', 'title']);
    const blank = await call(t, 'POST', '/api/v1/documents', writer.token, { title: '   ', content: 'x' });
    expectEnvelope(blank, 422);
    const unknown = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'x', content: 'x', titel: 'typo' });
    expectEnvelope(unknown, 422);
    expect(JSON.stringify(unknown.body.data.errors)).toContain('titel');
    const badStatus = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'x', content: 'x', status: 'archived' });
    expect(badStatus.body.data.errors[0].loc).toEqual(['body', 'status']);
    const badSlug = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'x', content: 'x', slug: 'Not A Slug' });
    expect(badSlug.body.data.errors[0].loc).toEqual(['body', 'slug']);
    const longTitle = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'x'.repeat(201), content: 'x' });
    expectEnvelope(longTitle, 422);
    const empty = await call(t, 'PUT', `/api/v1/documents/${docId}`, writer.token, {});
    expectEnvelope(empty, 422);
    expect(empty.body.message).toContain('nothing to update');
    const badPage = await call(t, 'GET', '/api/v1/documents?limit=1000&page=0', writer.token);
    expect(badPage.body.data.errors.map((e: any) => e.loc.join('.')).sort()).toEqual(['query.limit', 'query.page']);
  });

  it('answers unknown and malformed ids', async () => {
    if (!t) return;
    const unknown = await call(t, 'GET', '/api/v1/documents/999999', writer.token);
    expectEnvelope(unknown, 404);
    expect(unknown.body.message).toBe('document 999999 not found');
    expectEnvelope(await call(t, 'PUT', '/api/v1/documents/999999', writer.token, { title: 'x' }), 404);
    expectEnvelope(await call(t, 'DELETE', '/api/v1/documents/999999?permanent=true', writer.token), 404);
    const word = await call(t, 'GET', '/api/v1/documents/abc', writer.token);
    expectEnvelope(word, 422);
    expect(word.body.data.errors[0].loc).toEqual(['path', 'id']);
    expectEnvelope(await call(t, 'GET', '/api/v1/documents/99999999999', writer.token), 422);
    expectEnvelope(await call(t, 'DELETE', `/api/v1/documents/${docId}?permanent=yes`, writer.token), 422);
  });

  it('refuses a body over the limit with 413 in the envelope', async () => {
    if (!t) return;
    // Other docs routes take BODY_LIMIT_BYTES (64 KiB in this system); document writes DOCUMENT_BODY_LIMIT_BYTES (4 MiB).
    const profile = await call(t, 'PUT', `/api/v1/users/${writer.id}`, writer.token, { name: 'x'.repeat(100 * 1024) });
    expectEnvelope(profile, 413);
    expect(profile.body.message).toContain(String(64 * 1024));
    const r = await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Huge', content: 'x'.repeat(4 * 1024 * 1024) });
    expectEnvelope(r, 413);
    expect(r.body.message).toContain(String(4 * 1024 * 1024));
  });
});
