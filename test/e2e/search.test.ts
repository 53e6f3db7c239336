import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, eventually, expectEnvelope } from './docs-support';

const ids = (r: { body: any }) => r.body.data.hits.map((h: any) => h.id) as number[];
const today = () => new Date().toISOString().slice(0, 10);

// Search end to end: documents written through the docs API reach the index through the outbox,
// the bus and the search service's subscription; queries go through the gateway over HTTPS.
describe('docs API: search', () => {
  let t: TestSystem | null;
  let writer: { id: number; token: string };
  let reader: { id: number; token: string };
  let nobody: { id: number; token: string };
  const search = (q: string, token = reader.token) => call(t!, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`, token);
  const found = (q: string, id: number) => async () => (ids(await search(q)).includes(id) ? true : undefined);
  const missing = (q: string, id: number) => async () => (ids(await search(q)).includes(id) ? undefined : true);
  const create = async (body: Record<string, unknown>) => (await call(t!, 'POST', '/api/v1/documents', writer.token, { content: '', ...body })).body.data;

  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    writer = await docsUser(t, { docs_read: true, docs_write: true });
    reader = await docsUser(t, { docs_read: true });
    nobody = await docsUser(t, {});
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('finds a document after it is created, with highlighting, and not after it is deleted', async () => {
    if (!t) return;
    const doc = await create({ title: 'Zephyrine deployment handbook', content: '## Steps\n\nThe zephyrine cluster needs three nodes.', category: 'ops', tags: ['deploy'] });
    await eventually(found('zephyrine', doc.id), 'the new document in search results');
    const r = await search('zephyrine');
    expectEnvelope(r, 200);
    expect(r.body.data).toMatchObject({ query: 'zephyrine', total: 1, page: 1, limit: 10, total_pages: 1 });
    expect(r.body.data.hits[0]).toMatchObject({ id: doc.id, slug: doc.slug, title: 'Zephyrine deployment handbook', category: 'ops', tags: ['deploy'], author_id: writer.id });
    expect(r.body.data.hits[0].title_highlighted).toBe('<mark>Zephyrine</mark> deployment handbook');
    expect(r.body.data.hits[0].snippet).toContain('The <mark>zephyrine</mark> cluster needs three nodes.');
    expect(r.body.data.hits[0].snippet).not.toContain('##');

    await call(t, 'DELETE', `/api/v1/documents/${doc.id}`, writer.token);
    await eventually(missing('zephyrine', doc.id), 'the trashed document to leave the index');
    await call(t, 'POST', `/api/v1/documents/${doc.id}/restore`, writer.token);
    await eventually(found('zephyrine', doc.id), 'the restored document back in the index');
    await call(t, 'DELETE', `/api/v1/documents/${doc.id}?permanent=true`, writer.token);
    await eventually(missing('zephyrine', doc.id), 'the destroyed document to leave the index');
  });

  it('finds words joined by symbols and words between angle brackets, and marks only the word', async () => {
    if (!t) return;
    const doc = await create({ title: 'Symbols handbook', content: 'Set timeout=quokka. Use pelican+walrus. Compare narwhal<ocelot and iguana>gecko. tilde~wombat caret^jackal' });
    await eventually(found('jackal', doc.id), 'the document in search results');
    for (const word of ['quokka', 'walrus', 'ocelot', 'iguana', 'wombat', 'timeout']) expect({ word, found: ids(await search(word)).includes(doc.id) }).toEqual({ word, found: true });
    expect((await search('quokka')).body.data.hits[0].snippet).toContain('timeout=<mark>quokka</mark>');
  });

  it('indexes updates and finds drafts only once published', async () => {
    if (!t) return;
    const draft = await create({ title: 'Quillback notes', content: 'private quillback thoughts', status: 'draft' });
    const marker = await create({ title: 'Quillback marker', content: 'published quillback text' });
    await eventually(found('quillback', marker.id), 'the published marker');
    expect(ids(await search('quillback'))).not.toContain(draft.id);

    await call(t, 'PUT', `/api/v1/documents/${draft.id}`, writer.token, { status: 'published', title: 'Quillback handbook' });
    await eventually(found('handbook quillback', draft.id), 'the published draft');
    await call(t, 'PUT', `/api/v1/documents/${marker.id}`, writer.token, { title: 'Renamed marker', content: 'nothing here now' });
    await eventually(missing('quillback', marker.id), 'the old words of an updated document to be forgotten');
  });

  it('tolerates typos and completes the last word', async () => {
    if (!t) return;
    const doc = await create({ title: 'Kaleidoscope configuration', content: 'Configure the kaleidoscope renderer.' });
    await eventually(found('kaleidoscope', doc.id), 'the document');
    expect(ids(await search('kaleidoskope'))).toContain(doc.id);
    expect(ids(await search('kaleidscope configuraton'))).toContain(doc.id);
    expect(ids(await search('kaleido'))).toContain(doc.id);
  });

  it('filters by category, tags and date range, and sorts', async () => {
    if (!t) return;
    const a = await create({ title: 'Marmoset alpha', content: 'marmoset', category: 'faq', tags: ['one'] });
    const b = await create({ title: 'Marmoset beta', content: 'marmoset', category: 'guides', tags: ['two'] });
    const c = await create({ title: 'Marmoset gamma', content: 'marmoset', category: 'guides', tags: ['one', 'three'] });
    await eventually(async () => ((await search('marmoset')).body.data.total === 3 ? true : undefined), 'three marmosets');
    const adv = (body: unknown) => call(t!, 'POST', '/api/v1/search/advanced', reader.token, body);

    const guides = await adv({ query: 'marmoset', filters: { category: ['guides'] }, sort: 'relevance', limit: 10 });
    expectEnvelope(guides, 200);
    expect(ids(guides).sort()).toEqual([b.id, c.id].sort());
    expect(ids(await adv({ query: 'marmoset', filters: { tags: ['one'] } })).sort()).toEqual([a.id, c.id].sort());
    expect(ids(await adv({ query: 'marmoset', filters: { category: ['guides'], tags: ['one'] } }))).toEqual([c.id]);
    expect(ids(await adv({ query: 'marmoset', filters: { dateRange: { start: today(), end: today() } } })).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(ids(await adv({ query: 'marmoset', filters: { dateRange: { start: '2001-01-01', end: '2001-12-31' } } }))).toEqual([]);
    expect(ids(await adv({ query: 'marmoset', sort: 'created_asc' }))).toEqual([a.id, b.id, c.id]);
    expect(ids(await adv({ query: 'marmoset', sort: 'updated_desc' }))).toEqual([c.id, b.id, a.id]);
    const paged = await adv({ query: 'marmoset', sort: 'created_asc', limit: 2, page: 2 });
    expect(paged.body.data).toMatchObject({ total: 3, page: 2, limit: 2, total_pages: 2 });
    expect(ids(paged)).toEqual([c.id]);
    const filtersOnly = await adv({ filters: { category: ['faq'] } });
    expect(ids(filtersOnly)).toContain(a.id);
  });

  it('refuses bad search input with named fields', async () => {
    if (!t) return;
    const adv = (body: unknown) => call(t!, 'POST', '/api/v1/search/advanced', reader.token, body);
    const date = await adv({ query: 'x', filters: { dateRange: { start: '2025-13-01' } } });
    expectEnvelope(date, 422);
    expect(date.body.data.errors[0].loc).toEqual(['body', 'filters', 'dateRange', 'start']);
    const order = await adv({ query: 'x', filters: { dateRange: { start: '2025-03-01', end: '2025-02-01' } } });
    expectEnvelope(order, 422);
    expect(order.body.message).toContain('start must not be after end');
    const sort = await adv({ query: 'x', sort: 'popularity' });
    expect(sort.body.data.errors[0].loc).toEqual(['body', 'sort']);
    // Paging past the first 10,000 results: where the page was sent, body or query string.
    const deep = await adv({ query: 'x', page: 101, limit: 100 });
    expectEnvelope(deep, 422);
    expect(deep.body.data.errors[0].loc).toEqual(['body', 'page']);
    expect((await call(t, 'GET', '/api/v1/search?q=x&page=101&limit=100', reader.token)).body.data.errors[0].loc).toEqual(['query', 'page']);
    const types = await adv({ query: 5, filters: { category: 'faq' }, limit: '10' });
    expect(types.body.data.errors.map((e: any) => e.loc.join('.')).sort()).toEqual(['body.filters.category', 'body.limit', 'body.query']);
    expectEnvelope(await adv('{"query": '), 422);
    const empty = await call(t, 'GET', '/api/v1/search?q=%20', reader.token);
    expectEnvelope(empty, 422);
    expect(empty.body.data.errors[0].loc).toEqual(['query', 'q']);
    expectEnvelope(await call(t, 'GET', `/api/v1/search?q=${'x'.repeat(201)}`, reader.token), 422);
    const method = await call(t, 'DELETE', '/api/v1/search/advanced', reader.token);
    expectEnvelope(method, 405);
    expect(method.headers.get('allow')).toBe('POST');
    expectEnvelope(await call(t, 'DELETE', '/api/v1/search/advanced', undefined), 401);
    // A fixed segment is its own route, not the id of the route beside it.
    const bulkGet = await call(t, 'GET', '/api/v1/documents/bulk', reader.token);
    expectEnvelope(bulkGet, 405);
    expect(bulkGet.headers.get('allow')).toBe('POST');
    const options = await call(t, 'OPTIONS', '/api/v1/documents/bulk', undefined);
    expect(options.body.data.allow).toEqual(['POST', 'OPTIONS']);
    const me = await call(t, 'PUT', '/api/v1/users/me', reader.token, { name: 'x' });
    expectEnvelope(me, 405);
    expect(me.headers.get('allow')).not.toContain('PUT');
  });

  it('suggests titles and completed terms as the user types', async () => {
    if (!t) return;
    const doc = await create({ title: 'Xylograph printing basics', content: 'xylographic techniques explained' });
    await eventually(found('xylograph', doc.id), 'the document');
    const r = await call(t, 'GET', '/api/v1/search/suggest?q=xylog', reader.token);
    expectEnvelope(r, 200);
    expect(r.body.data.query).toBe('xylog');
    expect(r.body.data.suggestions).toContainEqual({ text: 'Xylograph printing basics', type: 'title', id: doc.id });
    expect(r.body.data.suggestions.filter((s: any) => s.type === 'term').map((s: any) => s.text)).toContain('xylographic');
    const first = await call(t, 'GET', '/api/v1/search/suggest?q=x', reader.token);
    expect(first.body.data.suggestions.every((s: any) => /(^|\s)x/i.test(s.text))).toBe(true);
    expect(first.body.data.suggestions.map((s: any) => s.text)).toContain('Xylograph printing basics');
    const blank = await call(t, 'GET', '/api/v1/search/suggest?q=%20', reader.token);
    expect(blank.body.data.suggestions).toEqual([]);
  });

  it('needs docs_read to search, and admin for analytics and rebuild', async () => {
    if (!t) return;
    expectEnvelope(await search('anything', nobody.token), 403);
    expectEnvelope(await call(t, 'GET', '/api/v1/search/suggest?q=abc', nobody.token), 403);
    expectEnvelope(await call(t, 'POST', '/api/v1/search/advanced', nobody.token, { query: 'x' }), 403);
    expectEnvelope(await call(t, 'GET', '/api/v1/search/analytics', reader.token), 403);
    expectEnvelope(await call(t, 'POST', '/api/v1/search/rebuild', reader.token), 403);
    expectEnvelope(await call(t, 'GET', '/api/v1/search', undefined), 401);
  });

  it('records analytics: top queries, zero-result queries and volume', async () => {
    if (!t) return;
    const doc = await create({ title: 'Analytics target ocelot', content: 'ocelot' });
    await eventually(found('ocelot', doc.id), 'the document');
    await search('Ocelot');
    await search('ocelot ');
    await search('nonexistentwordqq');
    const r = await call(t, 'GET', `/api/v1/search/analytics?interval=hour&limit=100`, t.adminToken);
    expectEnvelope(r, 200);
    const data = r.body.data;
    const ocelot = data.top_queries.find((q: any) => q.query === 'ocelot');
    expect(ocelot.count).toBeGreaterThanOrEqual(3);
    expect(ocelot.avg_results).toBeGreaterThan(0);
    expect(data.zero_result_queries).toContainEqual(expect.objectContaining({ query: 'nonexistentwordqq', count: 1, avg_results: 0 }));
    expect(data.zero_result_queries.map((q: any) => q.query)).not.toContain('ocelot');
    expect(data.total_queries).toBeGreaterThanOrEqual(4);
    expect(data.zero_result_total).toBeGreaterThanOrEqual(1);
    expect(data.interval).toBe('hour');
    const thisHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const volume = data.volume.reduce((sum: number, v: any) => sum + v.count, 0);
    expect(volume).toBe(data.total_queries);
    expect(data.volume.map((v: any) => v.period)).toContain(thisHour);
    expect(data.avg_latency_ms).toBeGreaterThanOrEqual(0);

    const bad = await call(t, 'GET', '/api/v1/search/analytics?from=yesterday', t.adminToken);
    expectEnvelope(bad, 422);
    const past = await call(t, 'GET', '/api/v1/search/analytics?from=2001-01-01&to=2001-01-02', t.adminToken);
    expect(past.body.data).toMatchObject({ total_queries: 0, top_queries: [], volume: [] });
  });

  it('rebuilds the whole index on demand', async () => {
    if (!t) return;
    const doc = await create({ title: 'Rebuild survivor wombat', content: 'wombat' });
    await eventually(found('wombat', doc.id), 'the document');
    const r = await call(t, 'POST', '/api/v1/search/rebuild', t.adminToken);
    expectEnvelope(r, 200);
    const status = await call(t, 'GET', '/api/v1/search/status', t.adminToken);
    expect(status.body.data).toMatchObject({ engine: 'embedded', ready: true, documents: r.body.data.indexed });
    expect(r.body.data.indexed).toBeGreaterThanOrEqual(1);
    expect(ids(await search('wombat'))).toContain(doc.id);
  });
});
