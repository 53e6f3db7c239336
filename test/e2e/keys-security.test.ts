import { startTestSystem, type TestSystem } from '../support/system';
import { api, newKey, newUser, postForm, startProbe, updateKey, type Probe, statusAndBody } from './keys-support';

// Another account's keys can never be listed, updated or deleted; an admin can, by account_id.
describe('API key management across accounts', () => {
  let t: TestSystem | null;
  let probe: Probe;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };
  let aliceKey: any;

  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    probe = await startProbe(t);
    alice = await newUser(t);
    bob = await newUser(t);
    aliceKey = await newKey(t, alice.token, { name: 'alice key', quota: '9' });
    await newKey(t, bob.token, { name: 'bob key' });
  });
  afterAll(async () => {
    await probe?.close();
    await t?.stop();
  });

  it('lists only the caller’s own keys', async () => {
    if (!t) return;
    const r = await postForm(t, '/apikeys/list', { token: bob.token });
    expect(r.body.data.items.map((k: any) => k.name)).toEqual(['bob key']);
    expect(r.body.data.items.every((k: any) => k.account_id === bob.id)).toBe(true);
  });

  it('refuses account_id of another account to a non-admin (403), on list and create', async () => {
    if (!t) return;
    const list = await postForm(t, '/apikeys/list', { token: bob.token, account_id: String(alice.id) });
    expect(list.status).toBe(403);
    const create = await postForm(t, '/apikeys/create', { token: bob.token, name: 'planted', account_id: String(alice.id) });
    expect(create.status).toBe(403);
    const aliceKeys = await postForm(t, '/apikeys/list', { token: alice.token });
    expect(aliceKeys.body.data.items.map((k: any) => k.name)).toEqual(['alice key']);
  });

  it('cannot update another account’s key: 404, and nothing changes', async () => {
    if (!t) return;
    for (const fields of [{ status: '禁用' }, { quota: '0' }, { name: 'stolen' }, { expired_time: '20200101000000' }] as Array<Record<string, string>>) {
      const r = await updateKey(t, bob.token, aliceKey.id, fields);
      expect(statusAndBody(r)).toEqual({ status: 404, body: { detail: `API key ${aliceKey.id} not found` } });
    }
    const mine = (await postForm(t, '/apikeys/list', { token: alice.token })).body.data.items[0];
    expect(mine).toMatchObject({ name: 'alice key', status: '启用', quota: 9, expired_time: null });
    expect((await probe.call('agent', aliceKey.key)).status).toBe(200);
  });

  it('cannot delete another account’s key: 404, and the key keeps working', async () => {
    if (!t) return;
    const r = await postForm(t, '/apikeys/delete', { token: bob.token, api_key_id: String(aliceKey.id) });
    expect(r.status).toBe(404);
    expect((await probe.call('agent', aliceKey.key)).status).toBe(200);
  });

  it('reports another account’s key exactly like a missing one', async () => {
    if (!t) return;
    const foreign = await updateKey(t, bob.token, aliceKey.id, { name: 'x' });
    const missing = await updateKey(t, bob.token, 876543, { name: 'x' });
    expect(foreign.status).toBe(missing.status);
    expect(foreign.body.detail.replace(String(aliceKey.id), 'N')).toBe(missing.body.detail.replace('876543', 'N'));
  });

  it('a disabled account’s token cannot manage keys (403); a deleted account’s token is unknown (401)', async () => {
    if (!t) return;
    const carol = await newUser(t);
    await api(t, 'PUT', `/api/v1/users/${carol.id}`, t.adminToken, { status: '禁用' });
    expect((await postForm(t, '/apikeys/list', { token: carol.token })).status).toBe(403);
    await api(t, 'DELETE', `/api/v1/users/${carol.id}`, t.adminToken);
    expect((await postForm(t, '/apikeys/list', { token: carol.token })).status).toBe(401);
  });

  it('an admin may list, update and delete any account’s keys', async () => {
    if (!t) return;
    const dave = await newUser(t);
    const key = await newKey(t, dave.token);
    const list = await postForm(t, '/apikeys/list', { token: t.adminToken, account_id: String(dave.id) });
    expect(list.body.data.items.map((k: any) => k.id)).toEqual([key.id]);
    expect((await updateKey(t, t.adminToken, key.id, { name: 'by admin' })).body.data.name).toBe('by admin');
    const created = await postForm(t, '/apikeys/create', { token: t.adminToken, name: 'for dave', account_id: String(dave.id) });
    expect(created.body.data.account_id).toBe(dave.id);
    expect((await postForm(t, '/apikeys/delete', { token: t.adminToken, api_key_id: String(key.id) })).status).toBe(200);
    expect((await probe.call('agent', key.key)).status).toBe(401);
  });

  it('never returns a secret after creation and stores none in clear', async () => {
    if (!t) return;
    const { Client } = await import('pg');
    const db = new Client({ connectionString: t.system.databaseUrls.keys });
    await db.connect();
    try {
      const rows = await db.query('SELECT key_hash, key_prefix FROM api_keys WHERE id = $1', [aliceKey.id]);
      expect(rows.rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows.rows[0].key_hash).not.toContain(aliceKey.key.slice(3));
      expect(aliceKey.key.startsWith(rows.rows[0].key_prefix)).toBe(true);
      const tokens = await db.query('SELECT token_hash FROM accounts WHERE id = $1', [alice.id]);
      expect(tokens.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(tokens.rows[0].token_hash).not.toBe(alice.token);
    } finally {
      await db.end();
    }
  });
});
