import { startTestSystem, type TestSystem } from '../support/system';
import { api, newKey, newUser, startProbe, type Probe } from './keys-support';

// /api/v1/users in the docs envelope: admin does everything, a user reads and edits only their own profile.
describe('users API', () => {
  let t: TestSystem | null;
  let probe: Probe;
  const envelope = (body: any, code: number) => {
    expect(body).toMatchObject({ code, message: expect.any(String), timestamp: expect.any(String) });
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  };

  beforeAll(async () => {
    t = await startTestSystem();
    if (t) probe = await startProbe(t);
  });
  afterAll(async () => {
    await probe?.close();
    await t?.stop();
  });

  describe('happy path', () => {
    it('creates a user with default permissions and returns the token once', async () => {
      if (!t) return;
      const r = await api(t, 'POST', '/api/v1/users', t.adminToken, { name: 'Ann', email: 'Ann@Example.com', level: 'free' });
      expect(r.status).toBe(201);
      envelope(r.body, 201);
      expect(r.body.data).toMatchObject({
        id: expect.any(Number),
        name: 'Ann',
        email: 'ann@example.com',
        level: 'free',
        status: '启用',
        permissions: { kinds: ['agent', 'workflow', 'aiapp', 'chatbot'], docs_read: true, docs_write: true, admin: false },
        valid_until: null,
      });
      expect(r.body.data.token).toMatch(/^tg-[A-Za-z0-9]{40}$/);
      const again = await api(t, 'GET', `/api/v1/users/${r.body.data.id}`, t.adminToken);
      expect(again.body.data.token).toBeUndefined();
      const me = await api(t, 'GET', '/api/v1/users/me', r.body.data.token);
      expect(me.body.data).toMatchObject({ id: r.body.data.id, name: 'Ann' });
      const seen = await api(t, 'GET', `/api/v1/users/${r.body.data.id}`, t.adminToken);
      expect(Date.parse(seen.body.data.last_active_at)).toBeGreaterThanOrEqual(Date.parse(r.body.data.created_at));
    });

    it('lists users for the admin with paging and filters', async () => {
      if (!t) return;
      await newUser(t, { level: 'enterprise' });
      const all = await api(t, 'GET', '/api/v1/users?limit=2&page=1', t.adminToken);
      expect(all.status).toBe(200);
      expect(all.body.data.users).toHaveLength(2);
      expect(all.body.data).toMatchObject({ page: 1, limit: 2 });
      expect(all.body.data.total).toBeGreaterThanOrEqual(3);
      const enterprise = await api(t, 'GET', '/api/v1/users?level=enterprise', t.adminToken);
      expect(enterprise.body.data.users.every((u: any) => u.level === 'enterprise')).toBe(true);
      expect(enterprise.body.data.users.some((u: any) => u.permissions.admin)).toBe(true);
    });

    it('lets a user read and rename themselves, and the admin change everything', async () => {
      if (!t) return;
      const u = await newUser(t);
      const mine = await api(t, 'PUT', `/api/v1/users/${u.id}`, u.token, { name: 'New Name', email: `renamed-${u.id}@example.com` });
      expect(mine.status).toBe(200);
      expect(mine.body.data).toMatchObject({ name: 'New Name', email: `renamed-${u.id}@example.com` });
      const byAdmin = await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { level: 'enterprise', permissions: { docs_write: false }, valid_until: '2099-01-01T00:00:00Z' });
      expect(byAdmin.body.data).toMatchObject({ level: 'enterprise', permissions: { docs_read: true, docs_write: false, kinds: ['agent', 'workflow', 'aiapp', 'chatbot'] }, valid_until: '2099-01-01T00:00:00.000Z' });
      expect((await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { valid_until: null })).body.data.valid_until).toBeNull();
    });

    it('deleting a user stops their token and disables their keys at once', async () => {
      if (!t) return;
      const u = await newUser(t);
      const key = await newKey(t, u.token);
      expect((await probe.call('agent', key.key)).status).toBe(200);
      const r = await api(t, 'DELETE', `/api/v1/users/${u.id}`, t.adminToken);
      expect(r.status).toBe(200);
      envelope(r.body, 200);
      expect((await probe.call('agent', key.key)).status).toBe(403);
      expect((await api(t, 'GET', '/api/v1/users/me', u.token)).status).toBe(401);
      expect((await api(t, 'GET', `/api/v1/users/${u.id}`, t.adminToken)).status).toBe(404);
    });
  });

  describe('errors', () => {
    it('401 in the envelope without or with an unknown token; 403 over plain HTTP', async () => {
      if (!t) return;
      const none = await api(t, 'GET', '/api/v1/users/me', undefined);
      expect(none.status).toBe(401);
      envelope(none.body, 401);
      expect((await api(t, 'GET', '/api/v1/users/me', 'tg-unknown-token')).status).toBe(401);
      const plain = await fetch(`${t.http}/api/v1/users/me`, { headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(plain.status).toBe(403);
    });

    it.each([
      ['missing email', { name: 'x', level: 'free' }, 'email'],
      ['bad email', { name: 'x', email: 'not-an-email', level: 'free' }, 'email'],
      ['empty name', { name: '', email: 'e1@example.com' }, 'name'],
      ['wrong type of name', { name: 42, email: 'e2@example.com' }, 'name'],
      ['unknown level', { name: 'x', email: 'e3@example.com', level: 'gold' }, 'level'],
      ['unknown kind', { name: 'x', email: 'e4@example.com', permissions: { kinds: ['teleport'] } }, 'kinds'],
      ['permissions of the wrong type', { name: 'x', email: 'e5@example.com', permissions: { admin: 'yes' } }, 'admin'],
      ['bad valid_until', { name: 'x', email: 'e6@example.com', valid_until: 'tomorrow' }, 'valid_until'],
      ['an unknown field', { name: 'x', email: 'e7@example.com', role: 'root' }, 'body'],
    ])('create: 422 for %s', async (_label, body, field) => {
      if (!t) return;
      const r = await api(t, 'POST', '/api/v1/users', t.adminToken, body);
      expect(r.status).toBe(422);
      envelope(r.body, 422);
      expect(r.body.data.errors.some((e: any) => e.loc.includes(field))).toBe(true);
    });

    it('create: 422 for malformed JSON, 409 for a taken email', async () => {
      if (!t) return;
      expect((await api(t, 'POST', '/api/v1/users', t.adminToken, '{"name": ')).status).toBe(422);
      await api(t, 'POST', '/api/v1/users', t.adminToken, { name: 'a', email: 'dup@example.com' });
      const dup = await api(t, 'POST', '/api/v1/users', t.adminToken, { name: 'b', email: 'DUP@example.com' });
      expect(dup.status).toBe(409);
    });

    it('404 for unknown ids, 422 for ids that are not numbers', async () => {
      if (!t) return;
      expect((await api(t, 'GET', '/api/v1/users/999999', t.adminToken)).status).toBe(404);
      expect((await api(t, 'PUT', '/api/v1/users/999999', t.adminToken, { name: 'x' })).status).toBe(404);
      expect((await api(t, 'DELETE', '/api/v1/users/999999', t.adminToken)).status).toBe(404);
      expect((await api(t, 'GET', '/api/v1/users/abc', t.adminToken)).status).toBe(422);
    });

    it('the bootstrap admin cannot be deleted or locked out (409)', async () => {
      if (!t) return;
      const me = await api(t, 'GET', '/api/v1/users/me', t.adminToken);
      expect(me.body.data.permissions.admin).toBe(true);
      expect((await api(t, 'DELETE', `/api/v1/users/${me.body.data.id}`, t.adminToken)).status).toBe(409);
      expect((await api(t, 'PUT', `/api/v1/users/${me.body.data.id}`, t.adminToken, { status: '禁用' })).status).toBe(409);
      expect((await api(t, 'PUT', `/api/v1/users/${me.body.data.id}`, t.adminToken, { permissions: { admin: false } })).status).toBe(409);
    });
  });

  describe('security', () => {
    it('a user cannot list, create or delete users (403)', async () => {
      if (!t) return;
      const u = await newUser(t);
      expect((await api(t, 'GET', '/api/v1/users', u.token)).status).toBe(403);
      expect((await api(t, 'POST', '/api/v1/users', u.token, { name: 'x', email: 'x@example.com' })).status).toBe(403);
      expect((await api(t, 'DELETE', `/api/v1/users/${u.id}`, u.token)).status).toBe(403);
    });

    it('a user cannot read or update another user (403)', async () => {
      if (!t) return;
      const u = await newUser(t);
      const other = await newUser(t);
      expect((await api(t, 'GET', `/api/v1/users/${other.id}`, u.token)).status).toBe(403);
      expect((await api(t, 'PUT', `/api/v1/users/${other.id}`, u.token, { name: 'hijack' })).status).toBe(403);
      expect((await api(t, 'GET', `/api/v1/users/${other.id}`, t.adminToken)).body.data.name).not.toBe('hijack');
    });

    it.each([
      ['level', { level: 'enterprise' }],
      ['status', { status: '禁用' }],
      ['permissions', { permissions: { admin: true } }],
      ['valid_until', { valid_until: '2099-01-01T00:00:00Z' }],
    ])('a user cannot change their own %s (403)', async (_f, body) => {
      if (!t) return;
      const u = await newUser(t);
      const r = await api(t, 'PUT', `/api/v1/users/${u.id}`, u.token, body);
      expect(r.status).toBe(403);
      const after = await api(t, 'GET', '/api/v1/users/me', u.token);
      expect(after.body.data).toMatchObject({ level: 'pro', status: '启用', valid_until: null, permissions: { admin: false } });
    });

    it('refuses an update that changes nothing (an empty body) with 422, as documents do', async () => {
      if (!t) return;
      const u = await newUser(t);
      const r = await api(t, 'PUT', `/api/v1/users/${u.id}`, u.token, {});
      expect(r.status).toBe(422);
      expect(r.body.message).toContain('nothing to update');
    });

    it('an account past its valid_until may only read with its token: every write is 403', async () => {
      if (!t) return;
      const u = await newUser(t);
      const doc = await api(t, 'POST', '/api/v1/documents', u.token, { title: 'written before the end', content: 'x', category: 'c' });
      expect(doc.status).toBe(201);
      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { valid_until: '2020-01-01T00:00:00Z' });
      for (const [method, path, body] of [
        ['POST', '/api/v1/documents', { title: 'after the end', content: 'x', category: 'c' }],
        ['PUT', `/api/v1/documents/${doc.body.data.id}`, { content: 'changed' }],
        ['DELETE', `/api/v1/documents/${doc.body.data.id}`, undefined],
        ['PUT', `/api/v1/users/${u.id}`, { name: 'renamed' }],
        ['POST', '/api/v1/users/me/token', undefined],
      ] as const) {
        const r = await api(t, method, path, u.token, body);
        expect({ method, path, status: r.status, message: r.body.message }).toEqual({ method, path, status: 403, message: expect.stringMatching(/^account has expired/) });
      }
      expect((await api(t, 'GET', '/api/v1/users/me', u.token)).status).toBe(200);
      expect((await api(t, 'GET', `/api/v1/documents/${doc.body.data.id}`, u.token)).status).toBe(200);
      expect((await api(t, 'POST', '/api/v1/search/advanced', u.token, { query: 'end' })).status).toBe(200);
      // Given a new end in the future, it writes again.
      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { valid_until: '2099-01-01T00:00:00Z' });
      expect((await api(t, 'PUT', `/api/v1/users/${u.id}`, u.token, { name: 'renamed' })).status).toBe(200);
    });

    it('a disabled user’s token is refused (403)', async () => {
      if (!t) return;
      const u = await newUser(t);
      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { status: '禁用' });
      expect((await api(t, 'GET', '/api/v1/users/me', u.token)).status).toBe(403);
    });
  });

  describe('cached user tokens follow every change on the next request', () => {
    it('disable, re-enable, permission changes, token rotation and deletion take effect at once', async () => {
      if (!t) return;
      const u = await newUser(t);
      const me = () => api(t!, 'GET', '/api/v1/users/me', u.token);
      expect((await me()).status).toBe(200);
      expect((await me()).status).toBe(200);
      expect(t.system.gateway.deps.accountCache!.size).toBeGreaterThan(0);

      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { status: '禁用' });
      expect((await me()).status).toBe(403);
      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { status: '启用' });
      expect((await me()).status).toBe(200);

      expect((await api(t, 'GET', '/api/v1/documents', u.token)).status).toBe(200);
      await api(t, 'PUT', `/api/v1/users/${u.id}`, t.adminToken, { permissions: { docs_read: false } });
      expect((await api(t, 'GET', '/api/v1/documents', u.token)).status).toBe(403);

      const rotated = await api(t, 'POST', `/api/v1/users/${u.id}/token`, u.token);
      expect(rotated.status).toBe(200);
      expect((await me()).status).toBe(401);
      expect((await api(t, 'GET', '/api/v1/users/me', rotated.body.data.token)).status).toBe(200);

      await api(t, 'DELETE', `/api/v1/users/${u.id}`, t.adminToken);
      expect((await api(t, 'GET', '/api/v1/users/me', rotated.body.data.token)).status).toBe(401);
    });
  });
});
