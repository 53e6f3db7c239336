import { gzipSync } from 'node:zlib';
import { startTestSystem, type TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';
import { api, newUser } from './keys-support';

// The console's session: sign-in by password or user token, the cookie, CSRF, sign-out, limits,
// token rotation and passwords; the session cookie as an alternative credential on public routes.
describe('console session', () => {
  let t: TestSystem | null;

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(async () => {
    await t?.stop();
  });

  interface Session {
    cookie: string;
    csrf: string;
    body: any;
  }

  async function request(method: string, path: string, opts: { cookie?: string; csrf?: string; json?: unknown; raw?: string; form?: Record<string, string>; accept?: string; overHttp?: boolean } = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
    if (opts.accept) headers.accept = opts.accept;
    let body: string | undefined;
    if (opts.json !== undefined || opts.raw !== undefined) {
      headers['content-type'] = 'application/json';
      body = opts.raw ?? JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    }
    if (opts.overHttp) return readReply(await fetch(`${t!.http}${path}`, { method, headers, body, redirect: 'manual' }));
    return readReply(await t!.httpsFetch(`${t!.https}${path}`, { method, headers, body, redirect: 'manual' }));
  }

  async function signIn(body: Record<string, string>): Promise<Session> {
    const r = await request('POST', '/api/v1/session', { json: body });
    if (r.status !== 201) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
    const setCookie = r.headers.get('set-cookie')!;
    return { cookie: setCookie.split(';')[0], csrf: r.body.data.csrf_token, body: r.body };
  }

  let seq = 0;
  async function userWithPassword(extra: Record<string, unknown> = {}): Promise<{ id: number; token: string; email: string; password: string }> {
    seq += 1;
    const email = `console${seq}-${Date.now()}@example.com`;
    const password = `correct horse ${seq}`;
    const u = await newUser(t!, { email, password, ...extra });
    return { ...u, email, password };
  }

  it('signs in with email + password: an httpOnly, Secure, SameSite=Strict cookie, a CSRF token, the user', async () => {
    if (!t) return;
    const u = await userWithPassword();
    const r = await request('POST', '/api/v1/session', { json: { email: u.email.toUpperCase(), password: u.password } });
    expect(r.status).toBe(201);
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^tollgate_session=ts-[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Expires=/);
    expect(r.body.data).toMatchObject({ user: { id: u.id, email: u.email, has_password: true }, csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(Date.parse(r.body.data.expires_at)).toBeGreaterThan(Date.now() + 3600_000);
    expect(r.text).not.toContain(cookie.split(';')[0].split('=')[1]);
  });

  it('signs in with the user token, and GET /api/v1/session reads the session back', async () => {
    if (!t) return;
    const s = await signIn({ token: t.adminToken });
    const r = await request('GET', '/api/v1/session', { cookie: s.cookie });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ user: { id: 1, permissions: { admin: true } }, csrf_token: s.csrf });
  });

  it('answers a wrong method on the session with 405 and Allow, and a body that is not JSON with 415', async () => {
    if (!t) return;
    const put = await request('PUT', '/api/v1/session', { json: { token: 'x' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST, GET, DELETE');
    expect(put.body).toMatchObject({ code: 405, message: expect.stringContaining('not allowed') });
    expect(put.headers.get('x-ratelimit-limit')).not.toBeNull();
    const form = await request('POST', '/api/v1/session', { form: { email: 'a@example.com', password: 'whatever1' } });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ code: 415, message: expect.stringContaining('application/json') });
  });

  it('refuses wrong credentials with one 401 message, and bad bodies with 422', async () => {
    if (!t) return;
    const u = await userWithPassword();
    const wrongPassword = await request('POST', '/api/v1/session', { json: { email: u.email, password: 'not the password' } });
    const unknownEmail = await request('POST', '/api/v1/session', { json: { email: 'nobody@example.com', password: 'whatever123' } });
    const wrongToken = await request('POST', '/api/v1/session', { json: { token: 'tg-nope' } });
    for (const r of [wrongPassword, unknownEmail, wrongToken]) {
      expect(r.status).toBe(401);
      expect(r.body.message).toBe('wrong email, password or user token');
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    // a user without a password cannot sign in by email (whatever password is tried), only by token
    const tokenOnlyEmail = `tokenonly-${Date.now()}@example.com`;
    const tokenOnly = await newUser(t, { email: tokenOnlyEmail });
    const noPassword = await request('POST', '/api/v1/session', { json: { email: tokenOnlyEmail, password: 'anything at all' } });
    expect(noPassword.status).toBe(401);
    expect(noPassword.body.message).toBe('wrong email, password or user token');
    await signIn({ token: tokenOnly.token });
    expect((await request('POST', '/api/v1/session', { json: { email: tokenOnlyEmail, password: '' } })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { raw: '{"email":' })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { json: { email: 1, password: [] } })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { json: { email: u.email, password: u.password, token: 'tg-x' } })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { json: { email: 'x'.repeat(400), password: 'y' } })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { json: { token: 'x'.repeat(300) } })).status).toBe(422);
    expect((await request('POST', '/api/v1/session', { json: {} })).status).toBe(422);
  });

  it('a disabled account cannot sign in, and its open session stops working', async () => {
    if (!t) return;
    const u = await userWithPassword();
    const s = await signIn({ email: u.email, password: u.password });
    expect((await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { status: '禁用' })).status).toBe(200);
    expect((await request('POST', '/api/v1/session', { json: { email: u.email, password: u.password } })).status).toBe(403);
    expect((await request('GET', '/api/v1/users/me', { cookie: s.cookie })).status).toBe(403);
  });

  it('the cookie authenticates the docs API, key management, billing and apps; writes need X-CSRF-Token', async () => {
    if (!t) return;
    const u = await userWithPassword();
    const s = await signIn({ email: u.email, password: u.password });
    const me = await request('GET', '/api/v1/users/me', { cookie: s.cookie });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(u.id);

    const noCsrf = await request('POST', '/apikeys/create', { cookie: s.cookie, form: { name: 'from console' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.detail).toMatch(/x-csrf-token/);
    const wrongCsrf = await request('POST', '/apikeys/create', { cookie: s.cookie, csrf: 'A'.repeat(43), form: { name: 'from console' } });
    expect(wrongCsrf.status).toBe(403);
    const created = await request('POST', '/apikeys/create', { cookie: s.cookie, csrf: s.csrf, form: { name: 'from console', quota: '5' } });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ account_id: u.id, name: 'from console', key: expect.stringMatching(/^ak-/) });
    const list = await request('POST', '/apikeys/list', { cookie: s.cookie, csrf: s.csrf, form: {} });
    expect(list.body.data.items.map((k: any) => k.id)).toEqual([created.body.data.id]);

    expect((await request('GET', '/v1/billing/usage', { cookie: s.cookie })).body).toMatchObject({ account_id: u.id, rows: [] });
    expect((await request('GET', '/v1/apps', { cookie: s.cookie })).status).toBe(200);
    expect((await request('POST', '/api/v1/documents', { cookie: s.cookie, json: { title: 'T', content: 'c' } })).status).toBe(403);
    expect((await request('POST', '/api/v1/documents', { cookie: s.cookie, csrf: s.csrf, json: { title: 'T', content: 'c' } })).status).toBe(201);
    // a session is not an admin credential
    expect((await request('GET', '/api/v1/users', { cookie: s.cookie })).status).toBe(403);
    // another session's CSRF token does not fit
    const other = await signIn({ email: u.email, password: u.password });
    expect((await request('POST', '/apikeys/list', { cookie: s.cookie, csrf: other.csrf, form: {} })).status).toBe(403);
    // a bearer token wins over the cookie (no CSRF needed for it)
    const bearer = await t.httpsFetch(`${t.https}/api/v1/users/me`, { headers: { authorization: `Bearer ${t.adminToken}`, cookie: s.cookie } });
    expect(((await bearer.json()) as any).data.id).toBe(1);
  });

  it('the session is HTTPS-only on the docs API', async () => {
    if (!t) return;
    const s = await signIn({ token: t.adminToken });
    expect((await request('GET', '/api/v1/session', { cookie: s.cookie, overHttp: true })).status).toBe(403);
    expect((await request('POST', '/api/v1/session', { json: { token: t.adminToken }, overHttp: true })).status).toBe(403);
  });

  it('keeps answers that carry a secret out of every cache (Cache-Control: no-store)', async () => {
    if (!t) return;
    const signedIn = await request('POST', '/api/v1/session', { json: { token: t.adminToken } });
    expect(signedIn.headers.get('cache-control')).toBe('no-store');
    const created = await request('POST', '/api/v1/users', { cookie: signedIn.headers.get('set-cookie')!.split(';')[0], csrf: signedIn.body.data.csrf_token, json: { name: 'Cache', email: `cache-${Date.now()}@example.com` } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = await request('POST', '/apikeys/create', { overHttp: true, form: { token: created.body.data.token, name: 'cached?' } });
    expect(key.status).toBe(200);
    expect(key.headers.get('cache-control')).toBe('no-store');
  });

  it('carries the rate-limit headers on every session answer, successful ones included', async () => {
    if (!t) return;
    const signedIn = await request('POST', '/api/v1/session', { json: { token: t.adminToken } });
    const s = { cookie: signedIn.headers.get('set-cookie')!.split(';')[0], csrf: signedIn.body.data.csrf_token };
    const answers = {
      'sign-in': signedIn,
      read: await request('GET', '/api/v1/session', { cookie: s.cookie }),
      options: await request('OPTIONS', '/api/v1/session'),
      'sign-out': await request('DELETE', '/api/v1/session', { cookie: s.cookie, csrf: s.csrf }),
    };
    for (const [what, r] of Object.entries(answers)) {
      expect({ what, status: r.status < 300, limit: Number(r.headers.get('x-ratelimit-limit')) > 0, remaining: r.headers.get('x-ratelimit-remaining') !== null, reset: r.headers.get('x-ratelimit-reset') !== null }).toEqual({ what, status: true, limit: true, remaining: true, reset: true });
    }
    expect(answers.options.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answers.options.body).toMatchObject({ code: 200, data: { allow: ['POST', 'GET', 'DELETE', 'OPTIONS'] } });
    expect(answers.options.headers.get('allow')).toBe('POST, GET, DELETE, OPTIONS');
    // One count per request: the remaining count goes down by one each time.
    expect(Number(answers.read.headers.get('x-ratelimit-remaining'))).toBe(Number(answers['sign-in'].headers.get('x-ratelimit-remaining')) - 1);
  });

  it('sign-out ends the session on the server (the old cookie no longer works) and clears the cookie', async () => {
    if (!t) return;
    const s = await signIn({ token: t.adminToken });
    expect((await request('DELETE', '/api/v1/session', { cookie: s.cookie })).status).toBe(403);
    const out = await request('DELETE', '/api/v1/session', { cookie: s.cookie, csrf: s.csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/tollgate_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await request('GET', '/api/v1/session', { cookie: s.cookie })).status).toBe(401);
    expect((await request('GET', '/api/v1/users/me', { cookie: s.cookie })).status).toBe(401);
    expect((await request('GET', '/api/v1/session', { cookie: 'tollgate_session=ts-forged' })).status).toBe(401);
    expect((await request('GET', '/api/v1/session')).status).toBe(401);
  });

  it('rotates your own token (shown once, the old one stops) and an admin resets anyone’s', async () => {
    if (!t) return;
    const u = await newUser(t);
    const rotated = await api(t, 'POST', '/api/v1/users/me/token', u.token);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.token as string;
    expect(fresh).toMatch(/^tg-[A-Za-z0-9]{40}$/);
    expect((await api(t, 'GET', '/api/v1/users/me', u.token)).status).toBe(401);
    expect((await api(t, 'GET', '/api/v1/users/me', fresh)).status).toBe(200);

    const other = await newUser(t);
    expect((await api(t, 'POST', `/api/v1/users/${other.id}/token`, fresh)).status).toBe(403);
    const reset = await api(t, 'POST', `/api/v1/users/${other.id}/token`, t.adminToken);
    expect(reset.status).toBe(200);
    expect((await api(t, 'GET', '/api/v1/users/me', other.token)).status).toBe(401);
    expect((await api(t, 'GET', '/api/v1/users/me', reset.body.data.token)).status).toBe(200);
    expect((await api(t, 'POST', '/api/v1/users/999999/token', t.adminToken)).status).toBe(404);
    expect((await api(t, 'POST', '/api/v1/users/abc/token', t.adminToken)).status).toBe(422);
  });

  it('ends the sessions of an account when its token is rotated (a leaked token’s sessions with it), except the session that rotated it', async () => {
    if (!t) return;
    const u = await newUser(t);
    const byToken = await signIn({ token: u.token });
    const rotatedWithToken = await api(t, 'POST', '/api/v1/users/me/token', u.token);
    expect(rotatedWithToken.status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: byToken.cookie })).status).toBe(401);

    const fresh = rotatedWithToken.body.data.token as string;
    const mine = await signIn({ token: fresh });
    const other = await signIn({ token: fresh });
    const rotatedInSession = await request('POST', '/api/v1/users/me/token', { cookie: mine.cookie, csrf: mine.csrf });
    expect(rotatedInSession.status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: mine.cookie })).status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: other.cookie })).status).toBe(401);

    const reset = await api(t, 'POST', `/api/v1/users/${u.id}/token`, t.adminToken);
    expect(reset.status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: mine.cookie })).status).toBe(401);
  });

  it('sets passwords: yourself with the current one (other sessions end), an admin for anyone; bad input is 422', async () => {
    if (!t) return;
    const u = await userWithPassword();
    const keep = await signIn({ email: u.email, password: u.password });
    const other = await signIn({ email: u.email, password: u.password });
    const wrong = await request('PUT', '/api/v1/users/me/password', { cookie: keep.cookie, csrf: keep.csrf, json: { password: 'a brand new one', current_password: 'nope' } });
    expect(wrong.status).toBe(422);
    expect((await request('PUT', '/api/v1/users/me/password', { cookie: keep.cookie, csrf: keep.csrf, json: { password: 'short', current_password: u.password } })).status).toBe(422);
    expect((await request('PUT', '/api/v1/users/me/password', { cookie: keep.cookie, csrf: keep.csrf, json: { password: 7 } })).status).toBe(422);
    const blank = await request('PUT', '/api/v1/users/me/password', { cookie: keep.cookie, csrf: keep.csrf, json: { password: ' '.repeat(12), current_password: u.password } });
    expect(blank.status).toBe(422);
    expect(blank.body.data.errors[0]).toMatchObject({ loc: ['body', 'password'] });
    expect((await api(t, 'POST', '/api/v1/users', t.adminToken, { name: 'blank', email: `blank-${Date.now()}@example.com`, password: '\t'.repeat(9) })).status).toBe(422);
    const ok = await request('PUT', '/api/v1/users/me/password', { cookie: keep.cookie, csrf: keep.csrf, json: { password: 'a brand new one', current_password: u.password } });
    expect(ok.status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: keep.cookie })).status).toBe(200);
    expect((await request('GET', '/api/v1/users/me', { cookie: other.cookie })).status).toBe(401);
    expect((await request('POST', '/api/v1/session', { json: { email: u.email, password: u.password } })).status).toBe(401);
    await signIn({ email: u.email, password: 'a brand new one' });

    const plain = await newUser(t);
    expect((await api(t, 'PUT', `/api/v1/users/${u.id}/password`, plain.token, { password: 'takeover123' })).status).toBe(403);
    expect((await api(t, 'PUT', `/api/v1/users/${u.id}/password`, t.adminToken, { password: 'set by admin' })).status).toBe(200);
    await signIn({ email: u.email, password: 'set by admin' });
  });

  it('serves the console: / redirects browsers, /console has cache headers, plain HTTP goes to HTTPS', async () => {
    if (!t) return;
    const html = await request('GET', '/', { accept: 'text/html,application/xhtml+xml' });
    expect(html.status).toBe(302);
    // No HSTS unless configured: the embedded default's certificate is self-signed on 127.0.0.1.
    expect(html.headers.get('strict-transport-security')).toBeNull();
    expect(html.headers.get('location')).toBe('/console/');
    const json = await request('GET', '/', { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect(json.body).toEqual({ detail: 'no route for GET /' });
    const plain = await request('GET', '/console/keys?x=1', { overHttp: true });
    expect(plain.status).toBe(302);
    expect(plain.headers.get('location')).toBe(`${t.https}/console/keys?x=1`);
    const page = await request('GET', '/console/');
    if (page.status === 503) throw new Error('the console is not built (pnpm install builds it)');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)![1];
    const js = await request('GET', asset);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect(js.text).not.toMatch(/https?:\/\/(cdn|unpkg|fonts\.googleapis)/);
    // the initial JavaScript stays within its budget (300 KB gzipped), and is the production build
    expect(gzipSync(js.text).length).toBeLessThanOrEqual(300 * 1024);
    expect(js.text).not.toContain('react-stack-top-frame');
    expect((await request('GET', '/console/deep/link')).text).toBe(page.text);
    expect((await request('GET', '/console/assets/missing.js')).status).toBe(404);
  });

  it('GET /v1/account/task-stats counts what is in flight itself: never negative above the exact cap of 100', async () => {
    if (!t) return;
    const u = await newUser(t);
    const s = await signIn({ token: u.token });
    const key = (await request('POST', '/apikeys/create', { cookie: s.cookie, csrf: s.csrf, form: { name: 'many' } })).body.data.key as string;
    const run = (callParams: Record<string, unknown> = {}) => fetch(`${t!.http}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], call_params: callParams }) }).then((r) => r.status);
    for (let i = 0; i < 6; i++) expect((await Promise.all(Array.from({ length: 20 }, () => run()))).every((st) => st === 200)).toBe(true);
    for (let i = 0; i < 5; i++) expect(await run({ echo_error: 'boom' })).toBeGreaterThanOrEqual(400);
    const stats = await request('GET', '/v1/account/task-stats', { cookie: s.cookie });
    expect(stats.status).toBe(200);
    // Above 100 the total and the completed count are the planner's estimates; what is in flight is counted itself.
    expect(stats.body).toMatchObject({ failed: 5, cancelled: 0, in_flight: 0 });
    expect(stats.body.total).toBeGreaterThan(100);
    expect(stats.body.completed).toBeGreaterThan(100);
  }, 120_000);

  it('GET /v1/account/task-stats counts how the account\'s tasks ended (user token or session)', async () => {
    if (!t) return;
    const u = await newUser(t);
    const s = await signIn({ token: u.token });
    const empty = await request('GET', '/v1/account/task-stats', { cookie: s.cookie });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ account_id: u.id, total: 0, completed: 0, failed: 0, cancelled: 0, in_flight: 0, error_rate: null });
    const key = (await request('POST', '/apikeys/create', { cookie: s.cookie, csrf: s.csrf, form: { name: 'stats' } })).body.data.key as string;
    const run = (callParams: Record<string, unknown>) =>
      fetch(`${t!.http}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], call_params: callParams }) });
    expect((await run({})).status).toBe(200);
    expect((await run({})).status).toBe(200);
    expect((await run({ echo_error: 'boom' })).status).toBeGreaterThanOrEqual(400);
    const stats = await request('GET', '/v1/account/task-stats?days=7', { cookie: s.cookie });
    expect(stats.body).toMatchObject({ account_id: u.id, total: 3, completed: 2, failed: 1, cancelled: 0, in_flight: 0 });
    expect(stats.body.error_rate).toBeCloseTo(1 / 3, 6);
    expect(Date.parse(stats.body.to) - Date.parse(stats.body.from)).toBe(7 * 86_400_000);
    // the same with the user token; an admin sees only their own account's tasks here
    expect((await t.httpsFetch(`${t.https}/v1/account/task-stats`, { headers: { authorization: `Bearer ${u.token}` } }).then((r) => r.json())) as any).toMatchObject({ total: 3 });
    expect((await t.httpsFetch(`${t.https}/v1/account/task-stats`, { headers: { authorization: `Bearer ${t.adminToken}` } }).then((r) => r.json())) as any).toMatchObject({ account_id: 1 });
    for (const bad of ['0', '367', 'abc', '1.5']) expect((await request('GET', `/v1/account/task-stats?days=${bad}`, { cookie: s.cookie })).status).toBe(422);
    expect((await request('GET', '/v1/account/task-stats')).status).toBe(401);
  });

  it('documents the session routes in /openapi.json', async () => {
    if (!t) return;
    const doc = (await request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/session']).sort()).toEqual(['delete', 'get', 'post']);
    expect(doc.paths['/api/v1/users/{id}/token'].post).toBeDefined();
    expect(doc.paths['/api/v1/users/{id}/password'].put).toBeDefined();
    expect(doc.paths['/v1/account/task-stats'].get.security).toEqual([{ userToken: [] }, { sessionCookie: [] }]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'tollgate_session' });
  });
  // Last: it spends this address's sign-in attempts.
  it('limits failed sign-ins per account (429 + Retry-After before any check), then per address', async () => {
    if (!t) return;
    const u = await userWithPassword();
    for (let i = 0; i < 5; i++) expect((await request('POST', '/api/v1/session', { json: { email: u.email, password: `wrong ${i}` } })).status).toBe(401);
    const limited = await request('POST', '/api/v1/session', { json: { email: u.email, password: u.password } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/try again in \d+ s/);
    // another account from the same address still signs in
    const v = await userWithPassword();
    await signIn({ email: v.email, password: v.password });
    // enough failures across accounts exhaust the address
    let status = 0;
    for (let i = 0; i < 25 && status !== 429; i++) status = (await request('POST', '/api/v1/session', { json: { email: `spray${i}@example.com`, password: 'guess12345' } })).status;
    expect(status).toBe(429);
  });
});
