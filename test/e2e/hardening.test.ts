import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { startTestSystem, type TestSystem } from '../support/system';
import { postForm } from './keys-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send } from './tasks-support';

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawExchange(url: string, bytes: string | Buffer, tls = false): Promise<{ status: number; headers: Record<string, string>; body: any; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tls ? tlsConnect({ host: hostname, port: Number(port), rejectUnauthorized: false }) : tcpConnect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on(tls ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const status = Number(lines[0]?.split(' ')[1]);
      const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body: any;
      try {
        body = JSON.parse(rest.join('\r\n\r\n'));
      } catch {
        body = undefined;
      }
      if (!lines[0]) return reject(new Error('no answer'));
      resolve({ status, headers, body, text });
    });
  });
}

describe('no request can hurt another', () => {
  let t: TestSystem | null;
  let attacker: Awaited<ReturnType<typeof newAccountWithKey>>;
  let victim: Awaited<ReturnType<typeof newAccountWithKey>>;
  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    attacker = await newAccountWithKey(t, 'free');
    victim = await newAccountWithKey(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses huge app_ids with 422 while another account keeps working', async () => {
    if (!t) return;
    const huge = 'a'.repeat(600 * 1024);
    const long = 'b'.repeat(100_000);
    const attacks = [
      ...Array.from({ length: 6 }, (_, i) => send(t!, 'POST', '/v1/agent/', { key: attacker.key, body: { app_id: i % 2 ? huge : long, call_params: { query: 'hi' } } })),
      send(t, 'POST', '/v1/agent/demo-agent/sync', { key: attacker.key, body: { ...hello(), app_id: long } }),
      send(t, 'POST', `/v1/agent/${'c'.repeat(1_000)}/sync`, { key: attacker.key, body: hello() }),
      send(t, 'POST', '/v1/task-query/list', { key: attacker.key, body: { app_id: long } }),
    ];
    const calls = Array.from({ length: 20 }, () => send(t!, 'POST', '/v1/agent/demo-agent/sync', { key: victim.key, body: hello() }));
    const [attacked, served] = await Promise.all([Promise.all(attacks), Promise.all(calls)]);
    for (const r of attacked) {
      expect(r.status).toBe(422);
      expect(r.text.length).toBeLessThan(2_000);
      expect(Array.isArray(r.body.detail)).toBe(true);
      expect(r.body.detail[0].type).toBe('too_big');
    }
    expect(attacked[0].body.detail[0].loc).toEqual(['body', 'app_id']);
    expect(attacked[7].body.detail[0].loc).toEqual(['path', 'app_id']);
    expect(served.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.text}`))).toEqual(served.map(() => 200));
  });

  it('answers 404 for anything on /events that is not a task of the caller, and subscribes to nothing', async () => {
    if (!t) return;
    for (const n of ['..', '%201', "'%20OR%201=1--", '%00', 'a.b', '*', '>', 'x'.repeat(5_000)]) {
      const r = await send(t, 'GET', `/v1/task-query/${n}/events`, { key: victim.key });
      expect({ n, status: r.status }).toEqual({ n, status: 404 });
      expect(typeof r.body.detail).toBe('string');
    }
    const mine = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: victim.key, body: hello() });
    const foreign = await send(t, 'GET', `/v1/task-query/${mine.body.task_number}/events`, { key: attacker.key });
    expect(foreign.status).toBe(404);
  });

  it("answers the HTTP parser's refusals in the task API's shape", async () => {
    if (!t) return;
    const badChunk = await rawExchange(t.http, 'POST /v1/agent/demo-agent/sync HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n');
    expect(badChunk.status).toBe(400);
    expect(typeof badChunk.body.detail).toBe('string');
    const both = await rawExchange(t.http, 'POST /v1/agent/demo-agent/sync HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(both.status).toBe(400);
    expect(typeof both.body.detail).toBe('string');
    const bigHeader = await rawExchange(t.http, `GET /v1/task-query/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'k'.repeat(100 * 1024)}\r\n\r\n`);
    expect(bigHeader.status).toBe(431);
    expect(typeof bigHeader.body.detail).toBe('string');
    expect(bigHeader.headers['x-request-id']).toBeTruthy();
    expect(bigHeader.headers.connection).toBe('close');
    const bigPath = await rawExchange(t.http, `GET /v1/task-query/${'p'.repeat(70 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(bigPath.status).toBe(431);
    // Past Node's default count of kept headers (1,000 pairs) the rest were dropped unseen: still counted.
    const manyHeaders = await rawExchange(t.http, `GET /v1/task-query/x HTTP/1.1\r\nHost: x\r\n${'a: b\r\n'.repeat(1_100)}X-Big: ${'v'.repeat(20 * 1024)}\r\n\r\n`);
    expect(manyHeaders.status).toBe(431);
    expect(typeof bigPath.body.detail).toBe('string');
    // A body declared over the limit is refused from its Content-Length, not after it was uploaded (none is sent here).
    for (const path of ['/v1/agent/demo-agent/sync', '/v1/task-query/list', '/apikeys/create']) {
      const declared = await rawExchange(t.http, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n`);
      expect({ path, status: declared.status, connection: declared.headers.connection }).toEqual({ path, status: 413, connection: 'close' });
      expect(typeof declared.body.detail).toBe('string');
    }
    const declaredDoc = await rawExchange(t.https, `POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 20000000\r\n\r\n`, true);
    expect(declaredDoc.status).toBe(413);
    expect(declaredDoc.body).toMatchObject({ code: 413, data: {} });
    // The server still answers after all of that.
    expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: victim.key, body: hello() })).status).toBe(200);
  });

  it("answers the HTTP parser's refusals on /api/* in the envelope with the rate-limit headers", async () => {
    if (!t) return;
    const bigPath = await rawExchange(t.https, `GET /api/v1/documents/${'p'.repeat(70 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, true);
    expect(bigPath.status).toBe(431);
    expect(bigPath.body).toMatchObject({ code: 431, data: {} });
    expect(typeof bigPath.body.message).toBe('string');
    expect(typeof bigPath.body.timestamp).toBe('string');
    expect(Number(bigPath.headers['x-ratelimit-limit'])).toBeGreaterThan(0);
    const badChunk = await rawExchange(t.https, 'POST /api/v1/documents HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', true);
    expect(badChunk.status).toBe(400);
    expect(badChunk.body).toMatchObject({ code: 400, data: {} });
    expect(badChunk.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('answers an Expect it cannot meet with 417 in the surface shape, and still does 100-continue', async () => {
    if (!t) return;
    const body = JSON.stringify(hello());
    const task = await rawExchange(t.http, `POST /v1/agent/demo-agent/sync HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(task.status).toBe(417);
    expect(task.body).toEqual({ detail: 'the expectation "200-ok" cannot be met; only 100-continue is supported' });
    expect(task.headers['x-request-id']).toBeTruthy();
    expect(task.headers.connection).toBe('close');
    const docs = await rawExchange(t.https, 'GET /api/v1/documents HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n', true);
    expect(docs.status).toBe(417);
    expect(docs.body).toMatchObject({ code: 417, data: {} });
    expect(Number(docs.headers['x-ratelimit-limit'])).toBeGreaterThan(0);
    const continued = await rawExchange(t.http, `POST /v1/agent/demo-agent/sync HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nAuthorization: Bearer ${victim.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(continued.text).toMatch(/^HTTP\/1\.1 100 Continue/);
  });

  it('refuses loose numbers in the key forms', async () => {
    if (!t) return;
    for (const [field, value] of [
      ['rpm_limit', '0x10'],
      ['rpm_limit', '0b11'],
      ['rpm_limit', '1e3'],
      ['rpm_limit', ' 7 '],
      ['concurrency_limit', '+7'],
      ['quota', '  '],
      ['quota', ''],
      ['quota', '1e3'],
      ['quota', '0x10'],
      ['quota', '-1'],
      ['quota', ' 5'],
    ]) {
      const r = await postForm(t, '/apikeys/create', { token: victim.token, name: 'loose', [field]: value });
      expect({ field, value, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ field, value, status: 422, loc: ['body', field] });
    }
    const list = await postForm(t, '/apikeys/list', { token: victim.token, page_size: '0x10' });
    expect(list.status).toBe(422);
    const plain = await postForm(t, '/apikeys/create', { token: victim.token, name: 'plain', rpm_limit: '16', quota: '12.5' });
    expect(plain.status).toBe(200);
    expect(plain.body.data).toMatchObject({ rpm_limit: 16, quota: 12.5 });
    const unlimited = await postForm(t, '/apikeys/create', { token: victim.token, name: 'unlimited' });
    expect(unlimited.body.data.quota).toBeNull();
    const cleared = await postForm(t, '/apikeys/update', { token: victim.token, api_key_id: String(plain.body.data.id), quota: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.quota).toBeNull();
    const blank = await postForm(t, '/apikeys/update', { token: victim.token, api_key_id: String(plain.body.data.id), quota: ' ' });
    expect(blank.status).toBe(422);
    const hexId = await postForm(t, '/apikeys/update', { token: victim.token, api_key_id: `0x${plain.body.data.id.toString(16)}`, name: 'x' });
    expect(hexId.status).toBe(422);
  });

  it('refuses over-long credentials and ids before they reach a service', async () => {
    if (!t) return;
    const token = await postForm(t, '/apikeys/list', { token: 't'.repeat(100_000) });
    expect(token.status).toBe(422);
    expect(token.body.detail[0].loc).toEqual(['body', 'token']);
    const bearer = await t.httpsFetch(`${t.https}/api/v1/documents`, { headers: { authorization: `Bearer ${'t'.repeat(10_000)}` } });
    expect(bearer.status).toBe(401);
    const reporter = await send(t, 'POST', '/v1/task-status/update', { headers: { 'x-reporter-token': 'r'.repeat(10_000) }, body: { task_number: 'T1', status: '已完成' } });
    expect(reporter.status).toBe(401);
    const idem = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: victim.key, body: hello(), headers: { 'idempotency-key': 'i'.repeat(256) } });
    expect(idem.status).toBe(422);
    const batch = await send(t, 'POST', '/v1/task-query/batch', { key: victim.key, body: { task_numbers: ['n'.repeat(65)] } });
    expect(batch.status).toBe(422);
  });

  // Last: it stops the tasks service.
  it('answers 503 with a stable message and the request id when a service is down, never gRPC internals', async () => {
    if (!t) return;
    await t.system.services.tasks.stop();
    const r = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: victim.key, body: hello(), headers: { 'x-request-id': 'req-hardening-503' } });
    expect([503, 504]).toContain(r.status);
    expect(r.body).toEqual({ detail: expect.any(String), request_id: 'req-hardening-503' });
    expect(r.body.detail).not.toMatch(/127\.0\.0\.1|remote_addr|LB pick|Deadline exceeded after|No connection established|ECONNREFUSED/);
    const q = await send(t, 'GET', '/v1/task-query/T20260101000000abcdef0123', { key: victim.key });
    expect([503, 504]).toContain(q.status);
    expect(q.body.detail).not.toMatch(/127\.0\.0\.1|remote_addr|ECONNREFUSED/);
  });
});
