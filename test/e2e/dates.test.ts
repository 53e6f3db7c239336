import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser } from './docs-support';
import { TASKS_TEST_ENV, newAccountWithKey, send } from './tasks-support';

// Numbers in query strings and paths are decimal digits only, on every route (0x10, +5, 1.0, 1e2 are 422).
// Every date and instant the API takes: a day that does not exist, or one outside 1970–9999, is a
// 422 at its field (it was a 500 from the database, or moved silently to another day); the ends of
// the range are answered.
describe('dates and instants in requests', () => {
  let t: TestSystem | null;
  let admin: { id: number; token: string };

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (t) admin = await docsUser(t, { admin: true, docs_read: true, docs_write: true });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const refusedAt = (r: { status: number; body: any }, field: string) => {
    expect({ status: r.status, fields: (r.body.data?.errors ?? r.body.detail ?? []).map((e: { loc: string[] }) => e.loc.at(-1)) }).toEqual({ status: 422, fields: expect.arrayContaining([field]) });
  };

  it('analytics: refuses year 0 and a day that does not exist; answers the last day of the range', async () => {
    if (!t) return;
    for (const report of ['usage', 'performance', 'users', 'content', 'search']) {
      refusedAt(await call(t, 'GET', `/api/v1/analytics/${report}?from=0000-01-01&to=0000-01-02`, admin.token), 'from');
      refusedAt(await call(t, 'GET', `/api/v1/analytics/${report}?from=2026-02-01&to=2026-02-30`, admin.token), 'to');
      expect((await call(t, 'GET', `/api/v1/analytics/${report}?from=9999-12-31&to=9999-12-31`, admin.token)).status).toBe(200);
    }
  });

  it('activity: refuses year 0, a day that does not exist and a reversed range; answers the last day of the range', async () => {
    if (!t) return;
    refusedAt(await call(t, 'GET', '/api/v1/activity?from=0000-01-01', admin.token), 'from');
    refusedAt(await call(t, 'GET', '/api/v1/activity?from=2026-02-30', admin.token), 'from');
    refusedAt(await call(t, 'GET', `/api/v1/users/${admin.id}/activity?to=0000-01-01T00:00:00Z`, admin.token), 'to');
    refusedAt(await call(t, 'GET', '/api/v1/activity?from=2027-01-01&to=2026-01-01', admin.token), 'from');
    expect((await call(t, 'GET', '/api/v1/activity?from=9999-12-31&to=9999-12-31T23:59:59Z', admin.token)).status).toBe(200);
  });

  it('users: valid_until in year 0 or on a day that does not exist is refused, not stored as another day', async () => {
    if (!t) return;
    const user = (valid_until: string) => call(t!, 'POST', '/api/v1/users', admin.token, { name: 'dated', email: `dated-${Date.now()}-${Math.random()}@example.com`, valid_until });
    refusedAt(await user('0000-01-01T00:00:00Z'), 'valid_until');
    refusedAt(await user('2026-02-30'), 'valid_until');
    const far = await user('9999-12-31T23:59:59Z');
    expect(far.status).toBe(201);
    expect(far.body.data.valid_until).toBe('9999-12-31T23:59:59.000Z');
    refusedAt(await call(t, 'PUT', `/api/v1/users/${far.body.data.id}`, admin.token, { valid_until: '0000-01-01T00:00:00Z' }), 'valid_until');
  });

  it('takes numbers in queries and paths as decimal digits only, on every route', async () => {
    if (!t) return;
    for (const bad of ['0x10', '%2B5', '1.0', '1e1', '-0', '']) {
      for (const [path, field] of [
        [`/api/v1/activity?limit=${bad}`, 'limit'],
        [`/api/v1/activity?page=${bad}`, 'page'],
        [`/api/v1/analytics/usage?limit=${bad}`, 'limit'],
        [`/api/v1/analytics/usage?user_id=${bad}`, 'user_id'],
        [`/api/v1/config/plugins/history?limit=${bad}`, 'limit'],
        [`/api/v1/webhooks/1/deliveries?limit=${bad}`, 'limit'],
        [`/api/v1/users/${bad === '' ? 'x' : bad}/token`, 'id'],
      ] as const) {
        const r = await call(t, path.endsWith('/token') ? 'POST' : 'GET', path, admin.token);
        expect({ path, status: r.status, fields: (r.body.data?.errors ?? []).map((e: { loc: string[] }) => e.loc.at(-1)) }).toEqual({ path, status: 422, fields: [field] });
      }
    }
    expect((await call(t, 'GET', '/api/v1/activity?limit=10&page=2', admin.token)).status).toBe(200);
    const me = await newAccountWithKey(t);
    expect((await send(t, 'GET', '/v1/account/task-stats?days=1e1', { key: me.token })).status).toBe(422);
    expect((await send(t, 'GET', '/v1/account/task-stats?days=10', { key: me.token })).status).toBe(200);
  });

  it('task list: created_from in year 0 is refused; created_to on the last day of the range is answered', async () => {
    if (!t) return;
    const me = await newAccountWithKey(t);
    const list = (body: Record<string, string>) => send(t!, 'POST', '/v1/task-query/list', { key: me.key, body });
    refusedAt(await list({ created_from: '0000-01-01' }), 'created_from');
    refusedAt(await list({ created_from: '2026-02-30T00:00:00Z' }), 'created_from');
    const ok = await list({ created_from: '2026-01-01', created_to: '9999-12-31' });
    expect(ok.status).toBe(200);
  });
});
