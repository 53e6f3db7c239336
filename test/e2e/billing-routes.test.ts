import { authenticateApiKey } from '../../gateway/src/auth/api-key';
import { admitExecution, settleExecution } from '../../gateway/src/billing/admission';
import { newTaskNumber } from '../../gateway/src/billing/task-number';
import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql, call, newAccount, newApiKey, thisMonth } from './billing-support';

// Bills, usage and prices through the gateway's /v1/billing routes, on the whole running system.
describe('/v1/billing', () => {
  let t: TestSystem | null;
  let owner: { id: number; token: string };
  let other: { id: number; token: string };
  let keyA: { id: number; key: string };
  let keyB: { id: number; key: string };

  async function execute(key: string, kind: 'agent' | 'chatbot', appId: string, outcome: 'charge' | 'refund' = 'charge') {
    const deps = t!.system.gateway.deps;
    const principal = await authenticateApiKey(deps, key, kind);
    const taskNumber = newTaskNumber();
    await admitExecution(deps, principal, { kind, appId, taskNumber });
    await settleExecution(deps, taskNumber, outcome);
  }

  beforeAll(async () => {
    t = await startTestSystem();
    if (!t) return;
    owner = await newAccount(t, 'enterprise');
    other = await newAccount(t, 'pro');
    keyA = await newApiKey(t, owner.token);
    keyB = await newApiKey(t, owner.token);
    await execute(keyA.key, 'agent', 'app-one');
    await execute(keyA.key, 'agent', 'app-one');
    await execute(keyA.key, 'chatbot', 'app-two');
    await execute(keyB.key, 'agent', 'app-one');
    await execute(keyB.key, 'agent', 'app-one', 'refund');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('returns the month bill by kind, app and key, adding up to the ledger', async () => {
    if (!t) return;
    const r = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`, owner.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ account_id: owner.id, month: thisMonth(), currency: '¥', frozen: false, total: '4' });
    expect(r.body.lines).toEqual([
      { kind: 'agent', app_id: 'app-one', api_key_id: keyA.id, count: 2, amount: '2' },
      { kind: 'agent', app_id: 'app-one', api_key_id: keyB.id, count: 1, amount: '1' },
      { kind: 'chatbot', app_id: 'app-two', api_key_id: keyA.id, count: 1, amount: '1' },
    ]);
    const [ledger] = await billingSql<{ total: string; n: number }>(t, "SELECT sum(amount)::text AS total, count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND type = 'charge'", [owner.id]);
    expect(Number(r.body.total)).toBe(Number(ledger.total));
    expect(r.body.lines.reduce((n: number, l: { count: number }) => n + l.count, 0)).toBe(ledger.n);
  });

  it('exports the bill as CSV with ?format=csv or Accept: text/csv', async () => {
    if (!t) return;
    const byQuery = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}?format=csv`, owner.token);
    expect(byQuery.status).toBe(200);
    expect(byQuery.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = byQuery.text.trim().split('\r\n');
    expect(lines[0]).toBe('month,account_id,kind,app_id,api_key_id,count,amount');
    expect(lines).toContain(`${thisMonth()},${owner.id},agent,app-one,${keyA.id},2,2`);
    expect(lines[lines.length - 1]).toBe(`${thisMonth()},${owner.id},total,,,4,4`);
    const byAccept = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`, owner.token, undefined, { accept: 'text/csv' });
    expect(byAccept.text).toBe(byQuery.text);
  });

  it("refuses another account's bill and usage (403); another account's key filters to nothing, exactly as an id no key has", async () => {
    if (!t) return;
    const bill = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}?account_id=${owner.id}`, other.token);
    expect(bill.status).toBe(403);
    expect(typeof bill.body.detail).toBe('string');
    expect((await call(t, 'GET', `/v1/billing/usage?account_id=${owner.id}`, other.token)).status).toBe(403);
    const othersKey = await call(t, 'GET', `/v1/billing/usage?api_key_id=${keyA.id}`, other.token);
    const noKey = await call(t, 'GET', `/v1/billing/usage?api_key_id=2000000000`, other.token);
    expect(othersKey.status).toBe(200);
    expect(othersKey.body).toMatchObject({ account_id: other.id, api_key_id: keyA.id, total: '0', rows: [] });
    expect({ ...othersKey.body, api_key_id: 0 }).toEqual({ ...noKey.body, api_key_id: 0 });
    const own = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`, other.token);
    expect(own.body).toMatchObject({ account_id: other.id, total: '0', lines: [] });
    const asAdmin = await call(t, 'GET', `/v1/billing/bills/${thisMonth()}?account_id=${owner.id}`, t.adminToken);
    expect(asAdmin.body).toMatchObject({ account_id: owner.id, total: '4' });
  });

  it('requires a valid user token and validates parameters', async () => {
    if (!t) return;
    expect((await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`)).status).toBe(401);
    expect((await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`, 'wrong-token')).status).toBe(401);
    expect((await call(t, 'GET', `/v1/billing/bills/${thisMonth()}`, keyA.key)).status).toBe(401);
    const badMonth = await call(t, 'GET', '/v1/billing/bills/2026-13', owner.token);
    expect(badMonth.status).toBe(422);
    expect(badMonth.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'month'] })]);
    expect((await call(t, 'GET', '/v1/billing/bills/0000-01', owner.token)).body.detail).toEqual([expect.objectContaining({ loc: ['path', 'month'] })]);
    expect((await call(t, 'GET', '/v1/billing/bills/2026-01?format=xml', owner.token)).status).toBe(422);
    const backwards = await call(t, 'GET', '/v1/billing/usage?from=2026-02-01&to=2026-01-01', owner.token);
    expect(backwards.status).toBe(422);
    expect(backwards.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'to'] })]);
    const impossible = await call(t, 'GET', '/v1/billing/usage?from=2026-02-31', owner.token);
    expect(impossible.status).toBe(422);
    expect(impossible.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'from'] })]);
    expect((await call(t, 'GET', '/v1/billing/usage?from=1969-12-31&to=1970-01-02', owner.token)).status).toBe(422);
    expect((await call(t, 'GET', '/v1/billing/usage?api_key_id=abc', owner.token)).status).toBe(422);
  });

  it('reports usage per day and kind, for the account or one key', async () => {
    if (!t) return;
    const today = new Date().toISOString().slice(0, 10);
    const all = await call(t, 'GET', '/v1/billing/usage', owner.token);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ account_id: owner.id, api_key_id: null, total: '4' });
    expect(all.body.rows).toEqual([
      { day: today, kind: 'agent', count: 3, amount: '3' },
      { day: today, kind: 'chatbot', count: 1, amount: '1' },
    ]);
    const one = await call(t, 'GET', `/v1/billing/usage?api_key_id=${keyB.id}&from=${today}`, owner.token);
    expect(one.body.rows).toEqual([{ day: today, kind: 'agent', count: 1, amount: '1' }]);
  });

  it('lets only an admin change a price, which the next admission uses without a restart', async () => {
    if (!t) return;
    const prices = await call(t, 'GET', '/v1/billing/prices', other.token);
    expect(prices.body.items).toContainEqual(expect.objectContaining({ kind: 'agent', basis: 'per_execution', unit_price: '1' }));
    const denied = await call(t, 'PUT', '/v1/billing/prices', owner.token, { kind: 'aiapp', basis: 'per_execution', unit_price: '3' });
    expect(denied.status).toBe(403);
    const unknown = await call(t, 'PUT', '/v1/billing/prices', t.adminToken, { kind: 'aiapp', basis: 'per_execution', unit_price: '3', currency: 'USD' });
    expect(unknown.status).toBe(422);
    const negative = await call(t, 'PUT', '/v1/billing/prices', t.adminToken, { kind: 'aiapp', basis: 'per_execution', unit_price: '-3' });
    expect(negative.status).toBe(422);
    expect(negative.body.detail.map((i: any) => i.loc)).toContainEqual(['body', 'unit_price']);
    const tooFine = await call(t, 'PUT', '/v1/billing/prices', t.adminToken, { kind: 'aiapp', basis: 'per_execution', unit_price: 0.0000001 });
    expect(tooFine.status).toBe(422);
    expect(tooFine.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'unit_price'] })]);
    expect((await call(t, 'PUT', '/v1/billing/prices', t.adminToken, { kind: 'nope', basis: 'per_execution', unit_price: '3' })).status).toBe(422);
    const set = await call(t, 'PUT', '/v1/billing/prices', t.adminToken, { kind: 'aiapp', basis: 'per_execution', unit_price: '3.25' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ kind: 'aiapp', basis: 'per_execution', unit_price: '3.25' });
    const deps = t.system.gateway.deps;
    const admitted = await admitExecution(deps, await authenticateApiKey(deps, keyA.key, 'aiapp'), { kind: 'aiapp', appId: 'app-three', taskNumber: newTaskNumber() });
    expect(admitted.reserved).toBe('3.25');
  });
});
