import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, eventually, expectEnvelope } from './docs-support';

const today = () => new Date().toISOString().slice(0, 10);

// Analytics end to end: requests measured by the gateway, sent in batches to the docs service,
// read back from its rollups; search analytics from the search service. Admins see everyone.
describe('docs API: analytics', () => {
  let t: TestSystem | null;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };
  let docId: number;
  beforeAll(async () => {
    t = await startTestSystem({ ANALYTICS_FLUSH_MS: '200' });
    if (!t) return;
    alice = await docsUser(t, { docs_read: true, docs_write: true });
    bob = await docsUser(t, { docs_read: true });
    docId = (await call(t, 'POST', '/api/v1/documents', alice.token, { title: 'Analysed', content: 'counted words', category: 'guides' })).body.data.id;
    for (let i = 0; i < 3; i++) await call(t, 'GET', `/api/v1/documents/${docId}`, alice.token);
    await call(t, 'GET', `/api/v1/documents/${docId}`, bob.token);
    await call(t, 'GET', '/api/v1/documents/999999', alice.token);
    await call(t, 'GET', '/api/v1/search?q=counted', alice.token);
    await call(t, 'GET', '/api/v1/search?q=bobsearch', bob.token);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('counts requests by endpoint group and status class, a user seeing their own', async () => {
    if (!t) return;
    const usage = await eventually(async () => {
      const r = await call(t!, 'GET', `/api/v1/analytics/usage?from=${today()}&to=${today()}&interval=hour`, alice.token);
      return r.body.data.by_group?.documents >= 5 && r.body.data.by_group?.search >= 1 ? r : undefined;
    }, "alice's requests in the usage report");
    expectEnvelope(usage, 200);
    expect(usage.body.data).toMatchObject({ interval: 'hour', user_id: alice.id, from: `${today()}T00:00:00.000Z` });
    expect(usage.body.data.by_status_class['4xx']).toBeGreaterThanOrEqual(1);
    expect(usage.body.data.by_status_class['2xx']).toBeGreaterThanOrEqual(5);
    expect(usage.body.data.series[0]).toEqual(expect.objectContaining({ period: expect.stringMatching(/T\d\d:00:00.000Z$/), group: expect.any(String), status_class: expect.stringMatching(/^[1-5]xx$/), count: expect.any(Number) }));
    const everyone = await call(t, 'GET', '/api/v1/analytics/usage', t.adminToken);
    expect(everyone.body.data.user_id).toBeNull();
    expect(everyone.body.data.total_requests).toBeGreaterThan(usage.body.data.total_requests);
    const onlyBob = await call(t, 'GET', `/api/v1/analytics/usage?user_id=${bob.id}`, t.adminToken);
    expect(onlyBob.body.data.user_id).toBe(bob.id);
    expect(onlyBob.body.data.total_requests).toBeLessThan(everyone.body.data.total_requests);
  });

  it('reports latency percentiles and error rates per endpoint group', async () => {
    if (!t) return;
    const r = await eventually(async () => {
      const x = await call(t!, 'GET', '/api/v1/analytics/performance', alice.token);
      return x.body.data.groups?.documents?.requests >= 5 ? x : undefined;
    }, 'the performance report');
    const docs = r.body.data.groups.documents;
    expect(docs.p50_ms).toBeGreaterThan(0);
    expect(docs.p95_ms).toBeGreaterThanOrEqual(docs.p50_ms);
    expect(docs.p99_ms).toBeGreaterThanOrEqual(docs.p95_ms);
    expect(docs.client_error_rate).toBeGreaterThan(0);
    expect(docs.error_rate).toBe(0);
    expect(r.body.data.series.length).toBeGreaterThan(0);
  });

  it('reports active, new and top users to admins, and only yourself to others', async () => {
    if (!t) return;
    const r = await eventually(async () => {
      const x = await call(t!, 'GET', '/api/v1/analytics/users', t!.adminToken);
      const top = x.body.data.top_users?.map((u: any) => u.user_id) ?? [];
      return top.includes(alice.id) && top.includes(bob.id) && x.body.data.series?.[0]?.new_users >= 2 ? x : undefined;
    }, 'alice and bob in the users report');
    expect(r.body.data.series[0].active_users).toBeGreaterThanOrEqual(2);
    const own = await call(t, 'GET', '/api/v1/analytics/users', bob.token);
    expect(own.body.data.top_users.map((u: any) => u.user_id)).toEqual([bob.id]);
  });

  it('counts document views, top documents and changes per category', async () => {
    if (!t) return;
    const r = await eventually(async () => {
      const x = await call(t!, 'GET', '/api/v1/analytics/content', t!.adminToken);
      // Changes are counted when their event is safe on the bus (docs-api.md): shortly after the view counts.
      return x.body.data.top_documents?.[0]?.views >= 4 && x.body.data.documents_created?.length > 0 ? x : undefined;
    }, 'the views of the document and its creation');
    expect(r.body.data.top_documents[0]).toEqual({ document_id: docId, views: 4 });
    expect(r.body.data.documents_created).toEqual([expect.objectContaining({ category: 'guides', count: 1 })]);
    const own = await call(t, 'GET', '/api/v1/analytics/content', bob.token);
    expect(own.body.data).toMatchObject({ total_views: 1, totals: { created: 0 } });
  });

  it('serves search analytics: everyone for admins, your own searches otherwise', async () => {
    if (!t) return;
    const all = await eventually(async () => {
      const x = await call(t!, 'GET', '/api/v1/analytics/search', t!.adminToken);
      return x.body.data.total_queries >= 2 ? x : undefined;
    }, 'both searches');
    expect(all.body.data.top_queries.map((q: any) => q.query)).toEqual(expect.arrayContaining(['counted', 'bobsearch']));
    expect(all.body.data.zero_result_queries.map((q: any) => q.query)).toContain('bobsearch');
    const own = await call(t, 'GET', '/api/v1/analytics/search', bob.token);
    expectEnvelope(own, 200);
    expect(own.body.data.top_queries.map((q: any) => q.query)).toEqual(['bobsearch']);
    expect(own.body.data.user_id).toBe(bob.id);
  });

  it('refuses bad ranges, other accounts for non-admins, and missing tokens', async () => {
    if (!t) return;
    const loc = async (q: string) => {
      const r = await call(t!, 'GET', `/api/v1/analytics/usage?${q}`, alice.token);
      expectEnvelope(r, 422);
      return r.body.data.errors.map((e: any) => e.loc.join('.'));
    };
    expect(await loc('from=2026-13-01')).toEqual(['query.from']);
    expect(await loc('from=2026-02-30')).toEqual(['query.from']);
    expect(await loc('interval=week')).toEqual(['query.interval']);
    expect(await loc('from=2026-03-02&to=2026-03-01')).toEqual(['query.from']);
    expect(await loc('from=2025-01-01&to=2026-03-01')).toEqual(['query.from']);
    expect(await loc('from=2026-01-01&to=2026-03-01&interval=hour')).toEqual(['query.from']);
    for (const report of ['usage', 'performance', 'users', 'content', 'search']) {
      expectEnvelope(await call(t, 'GET', `/api/v1/analytics/${report}?user_id=${bob.id}`, alice.token), 403);
      expectEnvelope(await call(t, 'GET', `/api/v1/analytics/${report}`, undefined), 401);
    }
    expectEnvelope(await call(t, 'GET', `/api/v1/analytics/usage?user_id=${alice.id}`, alice.token), 200);
  });
});
