import { startTestSystem, type TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';
import { call, docsUser, eventually, expectEnvelope } from './docs-support';
import { postForm } from './keys-support';

const ORIGIN = 'https://console.example.com';
const SEARCH_DEFAULTS = { synonyms: [], stop_words: [], typo_tolerance: true };

/** A docs-API call with extra headers (If-Match, Origin); the body is JSON. */
async function send(t: TestSystem, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.body !== undefined && { 'content-type': 'application/json' }), ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await t.httpsFetch(`${t.https}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  return readReply(res);
}

const expectRateHeaders = (r: Reply) => {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(r.headers.get(h)).toMatch(/^\d+$/);
};

// Configuration, search settings, rendering, activity and the envelope details, end to end over HTTPS.
describe('docs API: configuration, rendering, activity, envelope', () => {
  let t: TestSystem | null;
  let writer: { id: number; token: string };
  let reader: { id: number; token: string };
  beforeAll(async () => {
    t = await startTestSystem({ CORS_ORIGINS: `${ORIGIN}, https://other.example.com`, ANALYTICS_FLUSH_MS: '200', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    if (!t) return;
    writer = await docsUser(t, { docs_read: true, docs_write: true });
    reader = await docsUser(t, { docs_read: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('configuration', () => {
    it('reads with an ETag, writes with If-Match (428 without, 412 when stale) and keeps history', async () => {
      if (!t) return;
      const read = await send(t, 'GET', '/api/v1/config/site', { token: reader.token });
      expectEnvelope(read, 200);
      expect(read.headers.get('etag')).toBe('"site-0"');
      expect(read.body.data).toMatchObject({ section: 'site', version: 0, updated_by: null, updated_at: null, value: { name: 'Documentation', default_language: 'en' } });
      const value = { ...read.body.data.value, name: 'Tollgate docs', base_url: 'https://docs.example.com', contact: { name: 'Docs team', email: 'docs@example.com' } };

      const missing = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value });
      expectEnvelope(missing, 428);
      expect(missing.body.data).toEqual({});
      const saved = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value, headers: { 'if-match': '"site-0"' } });
      expectEnvelope(saved, 200);
      expect(saved.headers.get('etag')).toBe('"site-1"');
      expect(saved.body.data.value.name).toBe('Tollgate docs');
      const stale = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: { ...value, name: 'Lost update' }, headers: { 'if-match': '"site-0"' } });
      expectEnvelope(stale, 412);
      const wrongSection = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value, headers: { 'if-match': '"theme-1"' } });
      expectEnvelope(wrongSection, 412);
      // If-Match compares strongly (RFC 9110): a weak tag, another spelling of the number or a
      // version beyond any the section can have matches nothing (412, never a 500).
      for (const tag of ['W/"site-1"', '"site-01"', '"site-2147483648"', '"site-99999999999999999999"']) {
        const r = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value, headers: { 'if-match': tag } });
        expect([tag, r.status]).toEqual([tag, 412]);
        expectEnvelope(r, 412);
      }
      expect((await send(t, 'GET', '/api/v1/config/site', { token: reader.token })).body.data.value.name).toBe('Tollgate docs');
      // An error answer carries no ETag a client could take for the section's.
      expect(stale.headers.get('etag')).toBeNull();
      expect(missing.headers.get('etag')).toBeNull();
      // A list matches when one of its tags is the section's current version (RFC 9110).
      const listStale = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value, headers: { 'if-match': '"site-0", "theme-1"' } });
      expectEnvelope(listStale, 412);
      const listed = await send(t, 'PUT', '/api/v1/config/site', { token: t.adminToken, body: value, headers: { 'if-match': '"site-0", "site-1"' } });
      expectEnvelope(listed, 200);
      expect(listed.headers.get('etag')).toBe('"site-2"');

      const history = await send(t, 'GET', '/api/v1/config/site/history', { token: reader.token });
      expectEnvelope(history, 200);
      expect(history.body.data).toMatchObject({ total: 2, page: 1, limit: 20 });
      expect(history.body.data.entries[1]).toMatchObject({ version: 1, updated_by: 1, value: { name: 'Tollgate docs' } });
      expect(new Date(history.body.data.entries[0].updated_at).toISOString()).toBe(history.body.data.entries[0].updated_at);
    });

    it('lets only admins write and validates each section by its schema', async () => {
      if (!t) return;
      const theme = (await send(t, 'GET', '/api/v1/config/theme', { token: reader.token })).body.data.value;
      const forbidden = await send(t, 'PUT', '/api/v1/config/theme', { token: writer.token, body: theme, headers: { 'if-match': '"theme-0"' } });
      expectEnvelope(forbidden, 403);
      const locs = async (section: string, body: unknown) => {
        const r = await send(t!, 'PUT', `/api/v1/config/${section}`, { token: t!.adminToken, body, headers: { 'if-match': `"${section}-0"` } });
        expectEnvelope(r, 422);
        return r.body.data.errors.map((e: any) => e.loc.join('.'));
      };
      expect(await locs('theme', { ...theme, colors: { ...theme.colors, primary: 'red' } })).toEqual(['body.colors.primary']);
      expect(await locs('theme', { ...theme, custom_css: 'a'.repeat(20_001) })).toEqual(['body.custom_css']);
      expect(await locs('theme', { ...theme, shadow: true })).toEqual(['body.shadow']);
      const plugins = (await send(t, 'GET', '/api/v1/config/plugins', { token: reader.token })).body.data.value;
      expect(Object.keys(plugins).sort()).toEqual(['code_highlighting', 'heading_anchors', 'table_of_contents']);
      expect(await locs('plugins', { ...plugins, mermaid: { enabled: true, settings: {} } })).toEqual(['body.mermaid']);
      expect(await locs('plugins', { ...plugins, table_of_contents: { enabled: true, settings: { min_level: 4, max_level: 2 } } })).toEqual(['body.table_of_contents.settings.min_level']);
      expect(await locs('integrations', { default_webhook_events: ['document.created'], notification_url: 'http://plain.example.com/hook', notification_events: [] })).toEqual(['body.notification_url']);
      expect(await locs('search', { synonyms: [['lonely']], stop_words: [], typo_tolerance: true })).toEqual(['body.synonyms.0']);
      const malformed = await call(t, 'PUT', '/api/v1/config/search', t.adminToken, '{"synonyms": [');
      expectEnvelope(malformed, 422);
      expectEnvelope(await send(t, 'GET', '/api/v1/config/nothing', { token: reader.token }), 404);
      expectEnvelope(await send(t, 'GET', '/api/v1/config/site'), 401);
    });

    it('applies search synonyms and typo tolerance in the search service', async () => {
      if (!t) return;
      const doc = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Cluster operations', content: 'Running kubernetes in production.' })).body.data;
      const hits = async (q: string) => (await call(t!, 'GET', `/api/v1/search?q=${encodeURIComponent(q)}`, reader.token)).body.data.hits.map((h: any) => h.id) as number[];
      await eventually(async () => ((await hits('kubernetes')).includes(doc.id) ? true : undefined), 'the document in the index');
      expect(await hits('k8s')).not.toContain(doc.id);
      expect(await hits('kubernets')).toContain(doc.id);

      const put = await send(t, 'PUT', '/api/v1/config/search', { token: t.adminToken, body: { ...SEARCH_DEFAULTS, synonyms: [['k8s', 'kubernetes']], typo_tolerance: false }, headers: { 'if-match': '"search-0"' } });
      expectEnvelope(put, 200);
      await eventually(async () => ((await hits('k8s')).includes(doc.id) ? true : undefined), 'k8s to find the kubernetes document');
      expect(await hits('kubernets')).not.toContain(doc.id);
      const back = await send(t, 'PUT', '/api/v1/config/search', { token: t.adminToken, body: SEARCH_DEFAULTS, headers: { 'if-match': '"search-1"' } });
      expectEnvelope(back, 200);
      await eventually(async () => ((await hits('k8s')).includes(doc.id) ? undefined : true), 'the synonym to be gone');
    });
  });

  it('renders a document as sanitised HTML with the configured plugins, also under /v1/docs', async () => {
    if (!t) return;
    const doc = (await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Rendered', content: '## Setup\n\n<script>alert(1)</script>\n\n```ts\nlet x: number = 1;\n```' })).body.data;
    const r = await call(t, 'GET', `/api/v1/documents/${doc.id}/render`, reader.token);
    expectEnvelope(r, 200);
    expect(r.body.data).toMatchObject({ id: doc.id, version: 1, title: 'Rendered', toc: [{ level: 2, text: 'Setup', anchor: 'setup' }] });
    expect(r.body.data.html).toContain('<h2 id="setup">');
    expect(r.body.data.html).toContain('hljs-keyword');
    expect(r.body.data.html).not.toContain('<script');
    const alias = await call(t, 'GET', `/v1/docs/${doc.id}/render`, reader.token);
    expectEnvelope(alias, 200);
    expect(alias.body.data.html).toBe(r.body.data.html);
    expectEnvelope(await call(t, 'GET', '/api/v1/documents/999999/render', reader.token), 404);
    expectEnvelope(await call(t, 'GET', '/api/v1/documents/abc/render', reader.token), 422);
  });

  describe('activity', () => {
    it('records document, key, user and configuration changes with who, where and no secret', async () => {
      if (!t) return;
      const doc = (await send(t, 'POST', '/api/v1/documents', { token: writer.token, body: { title: 'Tracked', content: 'x' }, headers: { 'user-agent': 'activity-probe/1.0' } })).body.data;
      await call(t, 'PUT', `/api/v1/documents/${doc.id}`, writer.token, { content: 'y' });
      await call(t, 'DELETE', `/api/v1/documents/${doc.id}`, writer.token);
      await call(t, 'POST', `/api/v1/documents/${doc.id}/restore`, writer.token);
      const key = await postForm(t, '/apikeys/create', { token: writer.token, name: 'tracked key' });
      expect(key.status).toBe(200);
      const types = ['document.created', 'document.updated', 'document.deleted', 'document.restored', 'key.created'];
      const mine = await eventually(async () => {
        const r = await call(t!, 'GET', '/api/v1/activity?limit=100', writer.token);
        const seen = r.body.data.items.map((i: any) => i.type);
        return types.every((ty) => seen.includes(ty)) ? r : undefined;
      }, 'the activity of the writer');
      expectEnvelope(mine, 200);
      expect(mine.body.data.items.every((i: any) => i.user_id === writer.id)).toBe(true);
      const created = mine.body.data.items.find((i: any) => i.type === 'document.created');
      expect(created).toMatchObject({ user_id: writer.id, target_type: 'document', target_id: String(doc.id), user_agent: 'activity-probe/1.0' });
      expect(created.ip).toMatch(/127\.0\.0\.1/);
      expect(Object.keys(created).sort()).toEqual(['at', 'id', 'ip', 'summary', 'target_id', 'target_type', 'type', 'user_agent', 'user_id']);
      expect(mine.text).not.toContain(key.body.data.key);
      expect(mine.text).not.toContain(writer.token);

      const filtered = await call(t, 'GET', '/api/v1/activity?type=key.created', writer.token);
      expect(filtered.body.data.items.map((i: any) => i.type)).toEqual(['key.created']);
      expect((await call(t, 'GET', '/api/v1/activity?from=2999-01-01', writer.token)).body.data.items).toEqual([]);
      expectEnvelope(await call(t, 'GET', '/api/v1/activity?from=someday', writer.token), 422);
      expectEnvelope(await call(t, 'GET', '/api/v1/activity?limit=1000', writer.token), 422);
    });

    it('records console sign-ins, token rotations and webhook changes, without their secrets', async () => {
      if (!t) return;
      const person = await docsUser(t, { docs_read: true });
      const signIn = await send(t, 'POST', '/api/v1/session', { body: { token: person.token }, headers: { 'user-agent': 'console-probe/1.0' } });
      expect(signIn.status).toBe(201);
      const rotated = await call(t, 'POST', '/api/v1/users/me/token', person.token);
      expectEnvelope(rotated, 200);
      const token: string = rotated.body.data.token;
      const hook = await call(t, 'POST', '/api/v1/webhooks', token, { url: 'http://127.0.0.1:9/hook', events: ['task.completed'] });
      expectEnvelope(hook, 201);
      expectEnvelope(await call(t, 'DELETE', `/api/v1/webhooks/${hook.body.data.id}`, token), 200);
      const types = ['user.signed_in', 'token.rotated', 'webhook.created', 'webhook.deleted'];
      const mine = await eventually(async () => {
        const r = await call(t!, 'GET', '/api/v1/activity?limit=100', token);
        const seen = r.body.data.items.map((i: any) => i.type);
        return types.every((ty) => seen.includes(ty)) ? r : undefined;
      }, 'the console and webhook activity');
      expect(mine.body.data.items.every((i: any) => i.user_id === person.id)).toBe(true);
      expect(mine.body.data.items.find((i: any) => i.type === 'user.signed_in')).toMatchObject({ target_type: 'user', target_id: String(person.id), user_agent: 'console-probe/1.0' });
      expect(mine.body.data.items.find((i: any) => i.type === 'webhook.created')).toMatchObject({ target_type: 'webhook', target_id: String(hook.body.data.id) });
      for (const secret of [person.token, token, hook.body.data.secret]) expect(mine.text).not.toContain(secret);
    });

    it("shows a user's activity to them and to admins only", async () => {
      if (!t) return;
      await call(t, 'POST', '/api/v1/documents', writer.token, { title: 'Another', content: 'x' });
      const path = `/api/v1/users/${writer.id}/activity`;
      expectEnvelope(await call(t, 'GET', path, reader.token), 403);
      expectEnvelope(await call(t, 'GET', `/api/v1/activity?user_id=${writer.id}`, reader.token), 403);
      const own = await call(t, 'GET', path, writer.token);
      expectEnvelope(own, 200);
      const byAdmin = await eventually(async () => {
        const r = await call(t!, 'GET', `${path}?type=document.created`, t!.adminToken);
        return r.body.data.total >= 2 ? r : undefined;
      }, "the admin's view of the writer");
      expect(byAdmin.body.data.items.every((i: any) => i.user_id === writer.id && i.type === 'document.created')).toBe(true);
      const everyone = await eventually(async () => {
        const r = await call(t!, 'GET', '/api/v1/activity?limit=100', t!.adminToken);
        const types = r.body.data.items.map((i: any) => i.type);
        return types.includes('user.created') && types.includes('config.updated') ? r : undefined;
      }, 'user creation and configuration changes in the admin view');
      expect(new Set(everyone.body.data.items.map((i: any) => i.user_id)).size).toBeGreaterThan(1);
    });
  });

  describe('envelope details', () => {
    it('serves the document routes under /v1/docs with the envelope, rate-limit headers and HTTPS rule', async () => {
      if (!t) return;
      const created = await call(t, 'POST', '/v1/docs', writer.token, { title: 'Via alias', content: 'x' });
      expectEnvelope(created, 201);
      expectRateHeaders(created);
      const got = await call(t, 'GET', `/v1/docs/${created.body.data.id}`, reader.token);
      expectEnvelope(got, 200);
      expect(got.body.data.title).toBe('Via alias');
      const list = await call(t, 'GET', '/v1/docs?limit=1', reader.token);
      expectEnvelope(list, 200);
      expect(list.body.data.documents).toHaveLength(1);
      const missing = await call(t, 'GET', '/v1/docs/999999', reader.token);
      expectEnvelope(missing, 404);
      expectRateHeaders(missing);
      expect(missing.body.data).toEqual({});
      const plain = await fetch(`${t.http}/v1/docs`, { headers: { authorization: `Bearer ${reader.token}` } });
      expect(plain.status).toBe(403);
      expect(await plain.json()).toMatchObject({ code: 403, data: {} });
    });

    it('answers OPTIONS in the envelope with the rate-limit headers, without a token', async () => {
      if (!t) return;
      const r = await send(t, 'OPTIONS', '/api/v1/documents/12');
      expectEnvelope(r, 200);
      expectRateHeaders(r);
      expect(r.body.data.allow).toEqual(['GET', 'PUT', 'DELETE', 'OPTIONS']);
      expect(r.headers.get('allow')).toBe('GET, PUT, DELETE, OPTIONS');
      const alias = await send(t, 'OPTIONS', '/v1/docs');
      expect(alias.body.data.allow).toEqual(['GET', 'POST', 'OPTIONS']);
      const unknown = await send(t, 'OPTIONS', '/api/v1/nowhere');
      expectEnvelope(unknown, 404);
      expectRateHeaders(unknown);
      expect(unknown.body.data).toEqual({});
    });

    it('answers CORS preflights for the configured origins only', async () => {
      if (!t) return;
      const preflight = { origin: ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, if-match, content-type' };
      const ok = await send(t, 'OPTIONS', '/api/v1/config/site', { headers: preflight });
      expectEnvelope(ok, 200);
      expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(ok.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-match');
      expect(ok.headers.get('vary')).toContain('Origin');
      const actual = await send(t, 'GET', '/api/v1/config/site', { token: reader.token, headers: { origin: ORIGIN } });
      expect(actual.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(actual.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
      const foreign = await send(t, 'OPTIONS', '/api/v1/config/site', { headers: { ...preflight, origin: 'https://evil.example.com' } });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      expect(foreign.headers.get('access-control-allow-methods')).toBeNull();
    });
  });
});
