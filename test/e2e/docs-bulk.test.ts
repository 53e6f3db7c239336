import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, eventually, expectEnvelope } from './docs-support';

// Bulk import end to end: the gateway validates each item, the docs service creates the valid
// ones in one transaction with their events, and search indexes them from the bus.
describe('docs API: bulk import', () => {
  let t: TestSystem | null;
  let writer: { id: number; token: string };
  let reader: { id: number; token: string };
  const bulk = (body: unknown, token = writer.token) => call(t!, 'POST', '/api/v1/documents/bulk', token, body);

  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    writer = await docsUser(t, { docs_read: true, docs_write: true });
    reader = await docsUser(t, { docs_read: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('creates the valid items, refuses the others one by one, and makes the created ones searchable', async () => {
    if (!t) return;
    const r = await bulk({
      documents: [
        { title: 'Marmoset import one', content: 'marmoset body one', category: 'guides', tags: ['bulk'] },
        { title: '', content: 'no title' },
        { title: 'Marmoset import two', content: 'marmoset body two', slug: 'marmoset-given' },
        'not an object',
        { title: 'Marmoset import three', content: 'marmoset body three', slug: 'marmoset-given' },
        { title: 'Marmoset draft', content: 'marmoset draft body', status: 'draft' },
        { title: 'Marmoset import one', content: 'same title again', unknown: 1 },
        { title: 'Marmoset import one', content: 'same title, own slug' },
      ],
    });
    expectEnvelope(r, 200);
    const { results } = r.body.data;
    expect(r.body.data).toMatchObject({ created: 4, failed: 4 });
    expect(r.body.message).toBe('4 of 8 documents created');
    expect(results.map((x: any) => [x.index, x.status])).toEqual([
      [0, 201],
      [1, 422],
      [2, 201],
      [3, 422],
      [4, 409],
      [5, 201],
      [6, 422],
      [7, 201],
    ]);
    expect(results[0]).toMatchObject({ slug: 'marmoset-import-one', version: 1 });
    expect(results[2].slug).toBe('marmoset-given');
    expect(results[7].slug).toBe('marmoset-import-one-2');
    expect(results[1].errors[0].loc).toEqual(['body', 'documents', '1', 'title']);
    expect(results[3].errors[0].loc).toEqual(['body', 'documents', '3']);
    expect(results[4].errors[0].loc).toEqual(['body', 'documents', '4', 'slug']);
    expect(results[6].errors.map((e: any) => e.loc.join('.'))).toContain('body.documents.6.unknown');

    const got = await call(t, 'GET', `/api/v1/documents/${results[0].id}`, reader.token);
    expect(got.body.data).toMatchObject({ id: results[0].id, title: 'Marmoset import one', content: 'marmoset body one', category: 'guides', tags: ['bulk'], author_id: writer.id, status: 'published' });
    const revisions = await call(t, 'GET', `/api/v1/documents/${results[0].id}/revisions`, reader.token);
    expect(revisions.body.data.revisions).toHaveLength(1);

    const published = [results[0].id, results[2].id, results[7].id].sort();
    const hits = await eventually(async () => {
      const s = await call(t!, 'GET', '/api/v1/search?q=marmoset&limit=20', reader.token);
      const found = s.body.data.hits.map((h: any) => h.id).sort();
      return found.length === 3 ? found : undefined;
    }, 'the three published imports in search');
    expect(hits).toEqual(published);
  });

  it('derives distinct slugs for one title under concurrency: single creates and bulk imports all succeed', async () => {
    if (!t) return;
    const title = `Concurrent slug ${Date.now()}`;
    const singles = await Promise.all(Array.from({ length: 20 }, (_, i) => call(t!, 'POST', '/api/v1/documents', writer.token, { title, content: `single ${i}` })));
    expect(singles.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
    const bulks = await Promise.all(
      Array.from({ length: 6 }, (_, b) => bulk({ documents: Array.from({ length: 5 }, (_, i) => ({ title, content: `bulk ${b}.${i}` })) })),
    );
    expect(bulks.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const bulkResults = bulks.flatMap((r) => r.body.data.results as Array<{ status: number; slug?: string }>);
    expect(bulkResults.map((x) => x.status).filter((s) => s !== 201)).toEqual([]);
    const slugs = [...singles.map((r) => r.body.data.slug as string), ...bulkResults.map((x) => x.slug!)];
    expect(new Set(slugs).size).toBe(50);
    const base = [...slugs].sort((a, b) => a.length - b.length)[0];
    expect(slugs.every((x) => x === base || new RegExp(`^${base}-\\d+$`).test(x))).toBe(true);
  }, 60_000);

  it('refuses an item with a NUL character or nested too deep on its own; the others are created', async () => {
    if (!t) return;
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { deeper: deep };
    const r = await bulk({
      documents: [
        { title: 'Quokka bulk kept', content: 'fine' },
        { title: 'Quokka with \u0000 inside', content: 'x' },
        { title: 'Quokka too deep', content: 'x', tags: [deep] },
        { title: 'Quokka bulk kept too', content: 'also fine', tags: ['t\u0000'] },
        { title: 'Quokka bulk last', content: 'fine' },
      ],
    });
    expectEnvelope(r, 200);
    expect(r.body.data).toMatchObject({ created: 2, failed: 3 });
    const results = r.body.data.results;
    expect(results.map((x: any) => x.status)).toEqual([201, 422, 422, 422, 201]);
    expect(results[1].errors).toEqual([{ loc: ['body', 'documents', '1', 'title'], msg: expect.stringContaining('NUL'), type: 'string_nul' }]);
    expect(results[2].errors[0].type).toBe('too_deep');
    expect(results[3].errors[0].loc).toEqual(['body', 'documents', '3', 'tags', '0']);
  });

  it('refuses a request that is not 1 to 1,000 documents, and needs docs_write', async () => {
    if (!t) return;
    const none = await bulk({ documents: [] });
    expectEnvelope(none, 422);
    expect(none.body.data.errors[0].loc).toEqual(['body', 'documents']);
    const tooMany = await bulk({ documents: Array.from({ length: 1_001 }, (_, i) => ({ title: `t${i}`, content: '' })) });
    expectEnvelope(tooMany, 422);
    expect(tooMany.body.data.errors[0].loc).toEqual(['body', 'documents']);
    expectEnvelope(await bulk({ documents: 'nope' }), 422);
    expectEnvelope(await bulk({ docs: [] }), 422);
    expectEnvelope(await bulk('{"documents": ['), 422);
    expectEnvelope(await bulk({ documents: [{ title: 'x', content: '' }] }, reader.token), 403);
    expectEnvelope(await bulk({ documents: [{ title: 'x', content: '' }] }, 'not-a-token'), 401);
  });

  it('takes 1,000 documents in one request', async () => {
    if (!t) return;
    const documents = Array.from({ length: 1_000 }, (_, i) => ({ title: `Ocelot batch ${i}`, content: `ocelot number ${i} `.repeat(20), tags: ['ocelot'] }));
    const r = await bulk({ documents });
    expectEnvelope(r, 200);
    expect(r.body.data).toMatchObject({ created: 1_000, failed: 0 });
    expect(new Set(r.body.data.results.map((x: any) => x.id)).size).toBe(1_000);
    await eventually(async () => {
      const s = await call(t!, 'POST', '/api/v1/search/advanced', reader.token, { query: 'ocelot', filters: { tags: ['ocelot'] }, limit: 1 });
      return s.body.data.total === 1_000 ? true : undefined;
    }, 'all 1,000 documents in search', 60_000);
  });
});
