import { startTestSystem, type TestSystem } from '../support/system';
import { newKey, newUser, postForm, time14, updateKey, statusAndBody } from './keys-support';

// POST /apikeys/* through the gateway: the happy path and every kind of bad input.
describe('API key management', () => {
  let t: TestSystem | null;
  let token: string;
  let accountId: number;

  beforeAll(async () => {
    t = await startTestSystem();
    if (t) ({ token, id: accountId } = await newUser(t));
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('happy path', () => {
    it('creates a key with every spec field and shows the whole key only once', async () => {
      if (!t) return;
      const expiry = time14(86_400_000);
      const r = await postForm(t, '/apikeys/create', { token, name: ' Full key ', channel: 'platform', group: 'team-a', quota: '100.5', expired_time: expiry, comments: 'for tests' });
      expect(r.status).toBe(200);
      expect(r.body.detail).toEqual(expect.any(String));
      const data = r.body.data;
      expect(data).toMatchObject({
        account_id: accountId,
        name: 'Full key',
        channel: 'platform',
        allowed_kinds: ['agent', 'workflow', 'aiapp', 'chatbot'],
        group: 'team-a',
        quota: 100.5,
        used_quota: 0,
        remaining_quota: 100.5,
        expired_time: expiry,
        status: '启用',
        comments: 'for tests',
      });
      expect(data.key).toMatch(/^ak-[A-Za-z0-9]{32}$/);
      expect(data.created_time).toMatch(/^\d{14}$/);

      const list = await postForm(t, '/apikeys/list', { token });
      const listed = list.body.data.items.find((k: any) => k.id === data.id);
      expect(listed.key).toBe(`${data.key.slice(0, 11)}...`);
      expect(JSON.stringify(list.body)).not.toContain(data.key);
    });

    it('defaults: platform channel, group "default", unlimited quota, no expiry', async () => {
      if (!t) return;
      const key = await newKey(t, token, { name: 'minimal' });
      expect(key).toMatchObject({ channel: 'platform', group: 'default', quota: null, remaining_quota: null, expired_time: null, comments: '' });
    });

    it('serves the same routes under /v1/apikeys/*', async () => {
      if (!t) return;
      const r = await postForm(t, '/v1/apikeys/create', { token, name: 'v1 path' });
      expect(r.status).toBe(200);
      const list = await postForm(t, '/v1/apikeys/list', { token });
      expect(list.body.data.items.map((k: any) => k.id)).toContain(r.body.data.id);
    });

    it('normalizes channels: provider:<name> and custom kinds (sorted, no repeats)', async () => {
      if (!t) return;
      expect(await newKey(t, token, { channel: 'provider:openai' })).toMatchObject({ channel: 'provider:openai', allowed_kinds: ['passthrough'] });
      expect(await newKey(t, token, { channel: 'custom:chatbot,agent,agent' })).toMatchObject({ channel: 'custom:agent,chatbot', allowed_kinds: ['agent', 'chatbot'] });
    });

    it('lists with paging, total and channel/status filters', async () => {
      if (!t) return;
      const user = await newUser(t);
      for (let i = 0; i < 5; i++) await newKey(t, user.token, { name: `k${i}`, channel: i < 2 ? 'custom:agent' : 'platform' });
      const second = await newKey(t, user.token, { name: 'off', channel: 'provider:acme' });
      await updateKey(t, user.token, second.id, { status: '禁用' });

      const page = await postForm(t, '/apikeys/list', { token: user.token, page: '2', page_size: '2' });
      expect(page.body.data).toMatchObject({ total: 6, page: 2, page_size: 2 });
      expect(page.body.data.items.map((k: any) => k.name)).toEqual(['k2', 'k3']);
      expect((await postForm(t, '/apikeys/list', { token: user.token, page: '9' })).body.data).toMatchObject({ total: 6, items: [] });
      expect((await postForm(t, '/apikeys/list', { token: user.token, channel: 'custom' })).body.data.total).toBe(2);
      expect((await postForm(t, '/apikeys/list', { token: user.token, channel: 'platform' })).body.data.total).toBe(3);
      expect((await postForm(t, '/apikeys/list', { token: user.token, channel: 'provider:acme' })).body.data.total).toBe(1);
      expect((await postForm(t, '/apikeys/list', { token: user.token, status: '禁用' })).body.data.items.map((k: any) => k.name)).toEqual(['off']);
      expect((await postForm(t, '/apikeys/list', { token: user.token, status: '启用' })).body.data.total).toBe(5);
    });

    it('updates name, quota, status, expiry, comments and group', async () => {
      if (!t) return;
      const key = await newKey(t, token, { quota: '5' });
      const expiry = time14(3_600_000);
      const r = await updateKey(t, token, key.id, { name: 'renamed', quota: '7.25', status: '禁用', expired_time: expiry, comments: 'c', group: 'g2' });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ id: key.id, name: 'renamed', quota: 7.25, status: '禁用', expired_time: expiry, comments: 'c', group: 'g2' });
      expect(r.body.data.key).toMatch(/\.\.\.$/);
      const cleared = await updateKey(t, token, key.id, { quota: '', expired_time: '' });
      expect(cleared.body.data).toMatchObject({ quota: null, expired_time: null, name: 'renamed' });
    });

    it('refuses an update with a field it does not take (a typo must not be a silent no-op), and changes nothing', async () => {
      if (!t) return;
      const key = await newKey(t, token, { quota: '5' });
      const r = await updateKey(t, token, key.id, { name: 'kept?', quata: '50' });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'quata'], type: 'unrecognized_keys' })]);
      const list = await postForm(t, '/apikeys/list', { token });
      expect(list.body.data.items.find((k: any) => k.id === key.id)).toMatchObject({ name: key.name, quota: 5 });
    });

    it('refuses a create, list or delete with a field it does not take: a misspelt quota must not make an unlimited key', async () => {
      if (!t) return;
      const before = (await postForm(t, '/apikeys/list', { token, page_size: '100' })).body.data.total;
      const created = await postForm(t, '/apikeys/create', { token, name: 'capped?', quata: '10' });
      expect(created.status).toBe(422);
      expect(created.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'quata'], type: 'unrecognized_keys' })]);
      expect((await postForm(t, '/apikeys/list', { token, page_size: '100' })).body.data.total).toBe(before);
      const listed = await postForm(t, '/apikeys/list', { token, pagesize: '5' });
      expect(listed.status).toBe(422);
      expect(listed.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'pagesize'], type: 'unrecognized_keys' })]);
      const key = await newKey(t, token);
      const deleted = await postForm(t, '/apikeys/delete', { token, api_key_id: String(key.id), force: '1' });
      expect(deleted.status).toBe(422);
      expect(deleted.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'force'], type: 'unrecognized_keys' })]);
    });

    it('deletes a key: it leaves the list and cannot be updated or deleted again', async () => {
      if (!t) return;
      const key = await newKey(t, token);
      const r = await postForm(t, '/apikeys/delete', { token, api_key_id: String(key.id) });
      expect(r.status).toBe(200);
      expect(r.body.data.id).toBe(key.id);
      const list = await postForm(t, '/apikeys/list', { token, page_size: '100' });
      expect(list.body.data.items.map((k: any) => k.id)).not.toContain(key.id);
      expect((await updateKey(t, token, key.id, { name: 'x' })).status).toBe(404);
      expect((await postForm(t, '/apikeys/delete', { token, api_key_id: String(key.id) })).status).toBe(404);
    });
  });

  describe('errors', () => {
    const expect422 = (r: { status: number; body: any }, field: string) => {
      expect(r.status).toBe(422);
      expect(Array.isArray(r.body.detail)).toBe(true);
      expect(r.body.detail.length).toBeGreaterThan(0);
      for (const issue of r.body.detail) expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
      expect(r.body.detail.map((i: any) => i.loc[i.loc.length - 1])).toContain(field);
    };

    it('401 without a token, with an empty or unknown token', async () => {
      if (!t) return;
      for (const fields of [{ name: 'x' }, { token: '', name: 'x' }, { token: 'tg-nobody-has-this-token', name: 'x' }] as Array<Record<string, string>>) {
        const r = await postForm(t, '/apikeys/create', fields);
        expect(r.status).toBe(401);
        expect(typeof r.body.detail).toBe('string');
      }
    });

    it('401 for a JSON body without a token and for a body that is not a form', async () => {
      if (!t) return;
      const res = await fetch(`${t.http}/apikeys/list`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `token=${token}` });
      expect(res.status).toBe(401);
    });

    it('422 for a body that cannot be read, where the token would be: the caller is told what is wrong with it, not that the token is missing', async () => {
      if (!t) return;
      const broken = await fetch(`${t.http}/apikeys/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"token": "${token}", ` });
      expect(broken.status).toBe(422);
      expect(((await broken.json()) as any).detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
      const nul = await fetch(`${t.http}/apikeys/list`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${token}&page=%ZZ` });
      expect(nul.status).toBe(422);
    });

    it.each([
      ['missing name', {}, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['name twice (array)', { name: ['a', 'b'] }, 'name'],
      ['negative quota', { name: 'x', quota: '-1' }, 'quota'],
      ['text quota', { name: 'x', quota: 'lots' }, 'quota'],
      ['too precise quota', { name: 'x', quota: '1.0000001' }, 'quota'],
      ['quota beyond 999999999.999999', { name: 'x', quota: '1000000000' }, 'quota'],
      ['short expiry', { name: 'x', expired_time: '2027' }, 'expired_time'],
      ['impossible date', { name: 'x', expired_time: '20270230120000' }, 'expired_time'],
      ['hour 24', { name: 'x', expired_time: '20270101240000' }, 'expired_time'],
      ['past expiry', { name: 'x', expired_time: '20200101000000' }, 'expired_time'],
      ['unknown channel', { name: 'x', channel: 'bogus' }, 'channel'],
      ['custom channel without kinds', { name: 'x', channel: 'custom' }, 'channel'],
      ['custom channel with an unknown kind', { name: 'x', channel: 'custom:agent,teleport' }, 'channel'],
      ['provider channel without a name', { name: 'x', channel: 'provider:' }, 'channel'],
      ['group too long', { name: 'x', group: 'g'.repeat(65) }, 'group'],
      ['comments too long', { name: 'x', comments: 'c'.repeat(1001) }, 'comments'],
    ])('create: 422 for %s', async (_label, fields, field) => {
      if (!t) return;
      expect422(await postForm(t, '/apikeys/create', { token, ...(fields as Record<string, string>) }), field);
    });

    it('create: 422 for wrong JSON types', async () => {
      if (!t) return;
      const res = await fetch(`${t.http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, name: 123 }) });
      expect422({ status: res.status, body: await res.json() }, 'name');
    });

    it.each([
      ['page 0', { page: '0' }, 'page'],
      ['page not a number', { page: 'first' }, 'page'],
      ['page_size 0', { page_size: '0' }, 'page_size'],
      ['page_size over 100', { page_size: '101' }, 'page_size'],
      ['page_size fraction', { page_size: '2.5' }, 'page_size'],
      ['unknown status', { status: 'enabled' }, 'status'],
    ])('list: 422 for %s', async (_label, fields, field) => {
      if (!t) return;
      expect422(await postForm(t, '/apikeys/list', { token, ...fields }), field);
    });

    it.each([
      ['missing api_key_id', {}, 'api_key_id'],
      ['api_key_id not a number', { api_key_id: 'abc' }, 'api_key_id'],
      ['api_key_id 0', { api_key_id: '0' }, 'api_key_id'],
      ['api_key_id beyond int32', { api_key_id: '99999999999' }, 'api_key_id'],
    ])('update: 422 for %s', async (_label, fields, field) => {
      if (!t) return;
      expect422(await postForm(t, '/apikeys/update', { token, ...fields }), field);
    });

    it.each([
      ['empty name', { name: '' }, 'name'],
      ['negative quota', { quota: '-0.5' }, 'quota'],
      ['unknown status', { status: '停用' }, 'status'],
      ['bad expiry', { expired_time: '2027-01-01' }, 'expired_time'],
      ['empty group', { group: '' }, 'group'],
    ])('update: 422 for %s', async (_label, fields, field) => {
      if (!t) return;
      const key = await newKey(t, token);
      expect422(await updateKey(t, token, key.id, fields), field);
    });

    it('update and delete: 404 for unknown ids', async () => {
      if (!t) return;
      const r = await updateKey(t, token, 987654, { name: 'x' });
      expect(statusAndBody(r)).toEqual({ status: 404, body: { detail: 'API key 987654 not found' } });
      expect((await postForm(t, '/apikeys/delete', { token, api_key_id: '987654' })).status).toBe(404);
      expect422(await postForm(t, '/apikeys/delete', { token, api_key_id: 'x' }), 'api_key_id');
    });

    it('cannot create keys for a disabled account or one past its validity (403)', async () => {
      if (!t) return;
      const user = await newUser(t, { valid_until: '2020-01-01T00:00:00Z' });
      const r = await postForm(t, '/apikeys/create', { token: user.token, name: 'x' });
      expect(r.status).toBe(403);
      expect(r.body.detail).toMatch(/validity/);
    });
  });
});
