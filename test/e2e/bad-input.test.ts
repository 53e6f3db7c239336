import { gzipSync } from 'node:zlib';
import { startTestSystem, type TestSystem } from '../support/system';
import { postForm } from './keys-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send } from './tasks-support';

// Client mistakes that once reached PostgreSQL, gRPC or the HTTP layer as a 500: each is a 4xx
// in the spec's shape, and the API key is checked before the body's shape is reported.
describe('bad input never becomes a 500', () => {
  let t: TestSystem | null;
  let me: Awaited<ReturnType<typeof newAccountWithKey>>;
  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (t) me = await newAccountWithKey(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

  it('refuses NUL characters with 422 naming the field, on every surface', async () => {
    if (!t) return;
    const sync = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: me.key, body: hello('a\u0000b') });
    expect(sync.status).toBe(422);
    expect(sync.body.detail[0]).toMatchObject({ loc: ['body', 'messages', '0', 'content'], type: 'string_nul' });

    const query = await send(t, 'GET', '/v1/task-query/a%00b', { key: me.key });
    expect(query.status).toBe(422);
    expect(query.body.detail[0].loc).toEqual(['path', 'task_number']);

    const form = await postForm(t, '/apikeys/create', { token: me.token, name: 'a\u0000b' });
    expect(form.status).toBe(422);
    expect(form.body.detail[0].loc).toEqual(['body', 'name']);

    const doc = await t.httpsFetch(`${t.https}/api/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'nul\u0000', content: 'x', category: 'c' }),
    });
    expect(doc.status).toBe(422);
    expect(await doc.json()).toMatchObject({ code: 422, data: { errors: [{ loc: ['body', 'title'], type: 'string_nul' }] } });
  });

  it('refuses numbers JSON cannot hold (1e309 parses to Infinity) with 422 naming the field, instead of storing null', async () => {
    if (!t) return;
    for (const [raw, loc] of [
      ['{"messages":[{"role":"user","content":"hi"}],"call_params":{"x":1e309}}', ['body', 'call_params', 'x']],
      ['{"messages":[{"role":"user","content":"hi"}],"temperature":-1e400}', ['body', 'temperature']],
    ] as const) {
      const r = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, raw });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc, type: 'number_out_of_range' });
    }
    const doc = await t.httpsFetch(`${t.https}/api/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' },
      body: '{"title":"t","content":"x","category":"c","metadata":{"n":1e999}}',
    });
    expect(doc.status).toBe(422);
    expect(await doc.json()).toMatchObject({ code: 422, data: { errors: [{ loc: ['body', 'metadata', 'n'], type: 'number_out_of_range' }] } });
    // The largest finite double still passes.
    const fine = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, raw: '{"messages":[{"role":"user","content":"hi"}],"call_params":{"x":1.7976931348623157e308}}' });
    expect(fine.status).toBe(200);
  });

  it('refuses numbers beyond 32 bits with 422: max_tokens on every execution form, the task list page', async () => {
    if (!t) return;
    for (const path of ['/v1/agent/demo-agent/sync', '/v1/agent/demo-agent/async']) {
      for (const stream of [false, true]) {
        const r = await send(t, 'POST', path, { key: me.key, body: { ...hello(), stream, max_tokens: 2_147_483_648 } });
        expect([path, stream, r.status]).toEqual([path, stream, 422]);
        expect(r.body.detail[0].loc).toEqual(['body', 'max_tokens']);
      }
    }
    for (const page of [2_147_483_648, 1_000_000_000_000_000]) {
      const r = await send(t, 'POST', '/v1/task-query/list', { key: me.key, body: { page } });
      expect([page, r.status]).toEqual([page, 422]);
    }
  });

  it('refuses a JSON null body with 422 instead of reading it as {}, on both surfaces', async () => {
    if (!t) return;
    const list = await send(t, 'POST', '/v1/task-query/list', { key: me.key, raw: 'null' });
    expect(list.status).toBe(422);
    expect(list.body.detail[0].loc).toEqual(['body']);
    for (const [method, path] of [
      ['PUT', `/api/v1/users/${me.accountId}`],
      ['POST', '/api/v1/search/advanced'],
    ]) {
      const r = await t.httpsFetch(`${t.https}${path}`, { method, headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' }, body: 'null' });
      expect({ path, status: r.status }).toEqual({ path, status: 422 });
      expect(await r.json()).toMatchObject({ code: 422, data: { errors: [expect.objectContaining({ loc: ['body'] })] } });
    }
    // No body at all is still an empty request where every field is optional.
    expect((await send(t, 'POST', '/v1/task-query/list', { key: me.key })).status).toBe(200);
  });

  it('refuses an empty status list on the task list, rather than reading it as every status', async () => {
    if (!t) return;
    const empty = await send(t, 'POST', '/v1/task-query/list', { key: me.key, body: { status: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'status']);
    const some = await send(t, 'POST', '/v1/task-query/list', { key: me.key, body: { status: ['已完成', '已报错'] } });
    expect(some.status).toBe(200);
  });

  it('refuses deeply nested call_params with 422', async () => {
    if (!t) return;
    const res = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: me.key, body: { ...hello(), call_params: nested(60) } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('too_deep');
    expect(res.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'call_params']);
  });

  it('answers a bad path escape with 422', async () => {
    if (!t) return;
    const res = await send(t, 'GET', '/v1/task-query/%ff', { key: me.key });
    expect(res.status).toBe(422);
  });

  it('answers a form with too many fields with 413', async () => {
    if (!t) return;
    const fields = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}`, '1']));
    const res = await postForm(t, '/apikeys/create', { token: me.token, name: 'x', ...fields });
    expect(res.status).toBe(413);
    expect(typeof res.body.detail).toBe('string');
  });

  it('reports a body that claims gzip but is not, after authentication', async () => {
    if (!t) return;
    const raw = JSON.stringify(hello());
    const bogus = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: me.key, raw, headers: { 'content-encoding': 'gzip' } });
    expect(bogus.status).toBe(422);
    expect(bogus.body.detail[0]).toMatchObject({ loc: ['body'], type: 'body_invalid' });
    const anonymous = await send(t, 'POST', '/v1/agent/demo-agent/sync', { raw, headers: { 'content-encoding': 'gzip' } });
    expect(anonymous.status).toBe(401);

    const real = await fetch(`${t.http}/v1/agent/demo-agent/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(raw),
    });
    expect(real.status).toBe(200);
  });

  it('checks the key before it reports malformed JSON', async () => {
    if (!t) return;
    const anonymous = await send(t, 'POST', '/v1/agent/demo-agent/sync', { raw: '{bad' });
    expect(anonymous.status).toBe(401);
    const wrongKey = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: `ak-${'x'.repeat(32)}`, raw: '{bad' });
    expect(wrongKey.status).toBe(401);
    const withKey = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: me.key, raw: '{bad' });
    expect(withKey.status).toBe(422);
    expect(withKey.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('refuses a non-string api_key in the /v1/agent/ body with 422', async () => {
    if (!t) return;
    const res = await send(t, 'POST', '/v1/agent/', { body: { app_id: 'demo-agent', api_key: 5, wait_response: true, call_params: {} } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'api_key']);
  });
});
