import { startTestSystem, type TestSystem } from '../support/system';
import { call, newAccount, startReplica, type Replica, type Reply } from './billing-support';

const nextHour = () => Math.floor(Date.now() / 3_600_000 + 1) * 3600;

function expectRateHeaders(r: Reply, limit: number, remaining: number): void {
  expect(r.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(r.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  // the fixed window is the clock hour; allow for the hour turning during the test
  expect([nextHour(), nextHour() - 3600]).toContain(Number(r.headers.get('x-ratelimit-reset')));
}

// The docs API's hourly tiers, through real gateways in front of the real billing service.
describe('docs API hourly rate limit', () => {
  let t: TestSystem | null;
  let small: Replica[] = [];
  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    const env = { DOCS_RATE_LIMIT_FREE: '3', DOCS_RATE_LIMIT_PRO: '4', DOCS_RATE_LIMIT_ENTERPRISE: '5' };
    small = [await startReplica(t, env), await startReplica(t, env)];
  });
  afterAll(async () => {
    for (const r of small) await r.gateway.stop();
    await t?.stop();
  });

  it('gives free 1,000, pro 10,000 and enterprise the configured default (100,000) per hour, with the headers on every response', async () => {
    if (!t) return;
    for (const [level, limit] of [['free', 1000], ['pro', 10_000], ['enterprise', 100_000]] as const) {
      const { token } = await newAccount(t, level);
      const first = await call(t, 'GET', '/api/v1/users/me', token);
      expect(first.status).toBe(200);
      expectRateHeaders(first, limit, limit - 1);
      const second = await call(t, 'GET', '/api/v1/users/me', token);
      expectRateHeaders(second, limit, limit - 2);
      const missing = await call(t, 'GET', '/api/v1/no-such-thing', token);
      expect(missing.status).toBe(404);
      expectRateHeaders(missing, limit, limit - 3);
    }
  });

  it('answers 429 in the envelope once a token is over its tier, with Retry-After, and counts across two gateway replicas', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'free');
    const replies: Reply[] = [];
    for (let i = 0; i < 5; i++) {
      const r = small[i % 2];
      const res = await r.httpsFetch(`${r.https}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
      replies.push({ status: res.status, headers: res.headers as unknown as Headers, body: await res.json(), text: '' });
    }
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(replies.slice(0, 3).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);
    const over = replies[3];
    expectRateHeaders(over, 3, 0);
    expect(over.body).toMatchObject({ code: 429, data: {} });
    expect(over.body.message).toMatch(/rate limit exceeded: 3 requests per hour/);
    expect(typeof over.body.timestamp).toBe('string');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('a burst of one account across two replicas admits exactly its tier, each allowed request with its own remaining count', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'enterprise');
    const replies = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const r = small[i % 2];
        const res = await r.httpsFetch(`${r.https}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return { status: res.status, remaining: res.headers.get('x-ratelimit-remaining'), limit: res.headers.get('x-ratelimit-limit') };
      }),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(19);
    expect(replies.filter((r) => r.status === 200).map((r) => r.remaining).sort()).toEqual(['0', '1', '2', '3', '4']);
    for (const r of replies) expect(r.limit).toBe('5');
    for (const r of replies.filter((x) => x.status === 429)) expect(r.remaining).toBe('0');
  });

  it('keeps separate counts per token: one exhausted account does not limit another', async () => {
    if (!t) return;
    const a = await newAccount(t, 'pro');
    const b = await newAccount(t, 'pro');
    const r = small[0];
    const get = async (token: string) => (await r.httpsFetch(`${r.https}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status;
    for (let i = 0; i < 4; i++) expect(await get(a.token)).toBe(200);
    expect(await get(a.token)).toBe(429);
    expect(await get(b.token)).toBe(200);
  });

  it('puts the headers on refused unauthenticated requests too (counted per client address at the free tier)', async () => {
    if (!t) return;
    const none = await call(t, 'GET', '/api/v1/users/me');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: 401 });
    expect(none.headers.get('x-ratelimit-limit')).toBe('1000');
    const wrong = await call(t, 'GET', '/api/v1/users/me', 'not-a-real-token');
    expect(wrong.status).toBe(401);
    expect(Number(wrong.headers.get('x-ratelimit-remaining'))).toBe(Number(none.headers.get('x-ratelimit-remaining')) - 1);
    const plain = await fetch(`${t.http}/api/v1/users/me`);
    expect(plain.status).toBe(403);
    expect(plain.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('refuses an address that keeps sending bad tokens once it is over the free tier', async () => {
    if (!t) return;
    const r = small[1];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await r.httpsFetch(`${r.https}/api/v1/users/me`, { headers: { authorization: 'Bearer guessed-token' } })).status);
    // the address may already have spent part of this hour's 3 in the previous test; after that it is 429
    expect(statuses.slice(-3)).toEqual([429, 429, 429]);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });
});
