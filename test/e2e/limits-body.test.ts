import { startTestSystem, type TestSystem } from '../support/system';
import { newAccount } from './billing-support';

// Request body size limit (BODY_LIMIT_BYTES): 413 in the shape of the surface that was called.
describe('request body size limit', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem({ BODY_LIMIT_BYTES: '2048' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const big = JSON.stringify({ kind: 'agent', basis: 'per_execution', unit_price: '1', padding: 'x'.repeat(4096) });

  it('answers 413 {detail} on the task API', async () => {
    if (!t) return;
    const res = await t.httpsFetch(`${t.https}/v1/billing/prices`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` }, body: big });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: 'request body exceeds the limit of 2048 bytes' });
  });

  it('answers 413 in the envelope on the docs API', async () => {
    if (!t) return;
    const { id, token } = await newAccount(t, 'free');
    const res = await t.httpsFetch(`${t.https}/api/v1/users/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: big });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 413, message: 'request body exceeds the limit of 2048 bytes', data: {} });
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('answers malformed JSON on the docs API in the envelope too', async () => {
    if (!t) return;
    const { id, token } = await newAccount(t, 'pro');
    const res = await t.httpsFetch(`${t.https}/api/v1/users/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{"name":' });
    expect(res.status).toBe(422);
    expect(res.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(await res.json()).toMatchObject({ code: 422, data: { errors: [expect.objectContaining({ loc: ['body'], type: 'json_invalid' })] } });
  });

  it('accepts a body under the limit', async () => {
    if (!t) return;
    const res = await t.httpsFetch(`${t.https}/v1/billing/prices`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      body: JSON.stringify({ kind: 'agent', basis: 'per_execution', unit_price: '1' }),
    });
    expect(res.status).toBe(200);
  });
});
