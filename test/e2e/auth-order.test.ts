import { startTestSystem, type TestSystem } from '../support/system';
import { api, newKey, newUser, postForm, startProbe, time14, updateKey, type Probe, statusAndBody } from './keys-support';

// The spec's authentication order, through the real requireApiKey, keys service and PostgreSQL:
// each test makes a key fail two checks at once and proves the earlier check answers.
describe('API key authentication order', () => {
  let t: TestSystem | null;
  let probe: Probe;
  const admin = () => t!.adminToken;

  beforeAll(async () => {
    t = await startTestSystem();
    if (t) probe = await startProbe(t);
  });
  afterAll(async () => {
    await probe?.close();
    await t?.stop();
  });

  it('accepts a valid key and sets the principal', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token);
    const r = await probe.call('agent', key.key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ actor: { accountId: user.id, isAdmin: false, apiKeyId: key.id }, key_id: key.id, account_id: user.id, channel: 'platform' });
  });

  describe('1. format (and the header)', () => {
    it.each([
      ['no Authorization header', undefined, false, /missing Authorization/],
      ['a non-Bearer scheme', 'Basic abc', true, /malformed Authorization/],
      ['Bearer without a credential', 'Bearer ', true, /malformed Authorization/],
      ['a short key', 'ak-123', false, /format/],
      ['a wrong prefix', `sk-${'a'.repeat(32)}`, false, /format/],
      ['33 characters', `ak-${'a'.repeat(33)}`, false, /format/],
      ['non-alphanumeric characters', `ak-${'!'.repeat(32)}`, false, /format/],
    ])('401 for %s', async (_label, header, raw, detail) => {
      if (!t) return;
      const r = await probe.call('agent', header, raw);
      expect(r.status).toBe(401);
      expect(r.body.detail).toMatch(detail);
    });
  });

  it('2. existence: a well-formed unknown key is 401', async () => {
    if (!t) return;
    const r = await probe.call('agent', `ak-${'Z'.repeat(32)}`);
    expect(statusAndBody(r)).toEqual({ status: 401, body: { detail: 'invalid API key' } });
  });

  it('3 before 4/5: a 禁用 key of a disabled account reports the key status (403)', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token);
    expect((await updateKey(t, admin(), key.id, { status: '禁用' })).status).toBe(200);
    expect((await api(t, 'PUT', `/api/v1/users/${user.id}`, admin(), { status: '禁用' })).status).toBe(200);
    const r = await probe.call('agent', key.key);
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/API key status is 禁用/);
  });

  it('4 before 5: an account past valid_until with a kind its key does not allow reports the validity (403)', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { channel: 'custom:agent' });
    expect((await api(t, 'PUT', `/api/v1/users/${user.id}`, admin(), { valid_until: new Date(Date.now() - 60_000).toISOString() })).status).toBe(200);
    const r = await probe.call('workflow', key.key);
    expect(r.status).toBe(403);
    expect(r.body.detail).toMatch(/expired at/);
  });

  it('5: account status, account permission and channel each give 403', async () => {
    if (!t) return;
    const limited = await newUser(t, { permissions: { kinds: ['agent'] } });
    const key = await newKey(t, limited.token, { channel: 'custom:agent,chatbot' });
    expect((await probe.call('agent', key.key)).status).toBe(200);
    const noPermission = await probe.call('chatbot', key.key);
    expect(statusAndBody(noPermission)).toEqual({ status: 403, body: { detail: 'the account has no permission to run chatbot tasks' } });
    const wrongChannel = await newKey(t, limited.token, { channel: 'provider:openai' });
    expect((await probe.call('agent', wrongChannel.key)).body.detail).toMatch(/provider:openai key cannot run agent/);
    expect((await probe.call('passthrough', wrongChannel.key)).status).toBe(200);

    const disabled = await newUser(t);
    const dkey = await newKey(t, disabled.token);
    await api(t, 'PUT', `/api/v1/users/${disabled.id}`, admin(), { status: '禁用' });
    expect(statusAndBody(await probe.call('agent', dkey.key))).toEqual({ status: 403, body: { detail: 'the account of this API key is 禁用' } });
  });

  it('5 before 6: a disabled account with an exhausted key is 403, not 429', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { quota: '0' });
    await api(t, 'PUT', `/api/v1/users/${user.id}`, admin(), { status: '禁用' });
    expect((await probe.call('agent', key.key)).status).toBe(403);
  });

  it('5 before 6: a kind the channel forbids is 403 even when the quota is exhausted', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { channel: 'custom:agent', quota: '0' });
    expect((await probe.call('workflow', key.key)).status).toBe(403);
    expect((await probe.call('agent', key.key)).status).toBe(429);
  });

  it('6: quota 0 is exhausted: 429 with a detail about insufficient quota', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { quota: '0' });
    const r = await probe.call('agent', key.key);
    expect(r.status).toBe(429);
    expect(r.body.detail).toMatch(/insufficient quota/);
  });

  it('6 before 7: a key both over quota and expired gets the 429', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { quota: '0' });
    expect((await updateKey(t, user.token, key.id, { expired_time: time14(-60_000) })).status).toBe(200);
    const r = await probe.call('agent', key.key);
    expect(r.status).toBe(429);
    expect(r.body.detail).toMatch(/insufficient quota/);
  });

  it('7: an expired key is 401', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token, { quota: '10' });
    await updateKey(t, user.token, key.id, { expired_time: time14(-1_000) });
    const r = await probe.call('agent', key.key);
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/expired/);
  });

  it('3 before 7: a 禁用 and expired key is 403', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token);
    await updateKey(t, user.token, key.id, { status: '禁用', expired_time: time14(-1_000) });
    expect((await probe.call('agent', key.key)).status).toBe(403);
  });

  it('a platform key may not call the provider passthrough', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = await newKey(t, user.token);
    expect(statusAndBody(await probe.call('passthrough', key.key))).toEqual({ status: 403, body: { detail: 'a platform key cannot call the provider passthrough' } });
  });

  describe('cached keys follow every change on the next request', () => {
    it('disable, re-enable, quota and expiry updates take effect at once', async () => {
      if (!t) return;
      const user = await newUser(t);
      const key = await newKey(t, user.token);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      expect(t.system.gateway.deps.keyCache!.size).toBeGreaterThan(0);

      await updateKey(t, user.token, key.id, { status: '禁用' });
      expect((await probe.call('agent', key.key)).status).toBe(403);
      await updateKey(t, user.token, key.id, { status: '启用' });
      expect((await probe.call('agent', key.key)).status).toBe(200);
      await updateKey(t, user.token, key.id, { quota: '0' });
      expect((await probe.call('agent', key.key)).status).toBe(429);
      await updateKey(t, user.token, key.id, { quota: '', expired_time: time14(-1_000) });
      expect((await probe.call('agent', key.key)).status).toBe(401);
      await updateKey(t, user.token, key.id, { expired_time: '' });
      expect((await probe.call('agent', key.key)).status).toBe(200);
    });

    it('a deleted key is unknown (401) on the next request', async () => {
      if (!t) return;
      const user = await newUser(t);
      const key = await newKey(t, user.token);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      expect((await postForm(t, '/apikeys/delete', { token: user.token, api_key_id: String(key.id) })).status).toBe(200);
      expect(statusAndBody(await probe.call('agent', key.key))).toEqual({ status: 401, body: { detail: 'invalid API key' } });
    });

    it('an account change (disable, then delete) reaches its cached keys', async () => {
      if (!t) return;
      const user = await newUser(t);
      const key = await newKey(t, user.token);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      await api(t, 'PUT', `/api/v1/users/${user.id}`, t.adminToken, { permissions: { kinds: ['workflow'] } });
      expect((await probe.call('agent', key.key)).status).toBe(403);
      await api(t, 'PUT', `/api/v1/users/${user.id}`, t.adminToken, { permissions: { kinds: ['agent'] } });
      expect((await probe.call('agent', key.key)).status).toBe(200);
      expect((await api(t, 'DELETE', `/api/v1/users/${user.id}`, t.adminToken)).status).toBe(200);
      const r = await probe.call('agent', key.key);
      expect(r.status).toBe(403);
      expect(r.body.detail).toMatch(/禁用/);
    });

    it('a change made through another gateway reaches this one through the keys.changed event alone', async () => {
      if (!t) return;
      const user = await newUser(t);
      const key = await newKey(t, user.token);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      const { KeysClient } = await import('@tollgate/protos/keys');
      const { createGrpcClient } = await import('@tollgate/kit');
      const direct = createGrpcClient(KeysClient, t.system.services.keys.address);
      try {
        await direct.updateKey({ actor: { accountId: user.id, isAdmin: false, apiKeyId: 0 }, apiKeyId: key.id, status: '禁用' });
      } finally {
        direct.close();
      }
      await new Promise((r) => setImmediate(r));
      expect((await probe.call('agent', key.key)).status).toBe(403);
    });
  });
});
