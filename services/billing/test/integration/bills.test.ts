import { ErrorCode } from '@tollgate/kit';
import { admitRequest, rejection, startBilling, taskNo, type BillingHarness } from './harness';

const ADMIN = { accountId: 1, isAdmin: true, apiKeyId: 0 };
const owner = (accountId: number) => ({ accountId, isAdmin: false, apiKeyId: 0 });
const thisMonth = () => new Date().toISOString().slice(0, 7);
const firstLoc = (err: { details: Record<string, unknown> }) => (err.details.issues as Array<{ loc: string[] }> | undefined)?.[0]?.loc;

describe('Prices, bills and usage', () => {
  let b: BillingHarness | null;
  beforeAll(async () => {
    b = await startBilling();
  });
  afterAll(async () => {
    await b?.stop();
  });

  async function run(accountId: number, apiKeyId: number, kind: string, appId: string, outcome: 'charge' | 'refund' = 'charge') {
    const req = admitRequest({ accountId, apiKeyId, kind, appId, rpmLimit: 10_000, concurrencyLimit: 10_000 });
    await b!.client.admit(req);
    await b!.client.settle({ taskNumber: req.taskNumber, outcome });
  }

  it('lists the default prices: 1.0 per execution for the four kinds, per request for the passthrough', async () => {
    if (!b) return;
    const { items } = await b.client.listPrices({});
    expect(items.map((p) => [p.kind, p.basis, p.unitPrice])).toEqual([
      ['agent', 'per_execution', '1'],
      ['aiapp', 'per_execution', '1'],
      ['chatbot', 'per_execution', '1'],
      ['passthrough', 'per_request', '1'],
      ['workflow', 'per_execution', '1'],
    ]);
  });

  it('applies a price change to the next admission, without a restart; only an admin may change it', async () => {
    if (!b) return;
    const denied = await rejection(b.client.setPrice({ actor: owner(5), price: { kind: 'workflow', basis: 'per_execution', unitPrice: '9', updatedAt: '' } }));
    expect(denied.code).toBe(ErrorCode.PermissionDenied);
    expect((await rejection(b.client.setPrice({ price: { kind: 'workflow', basis: 'per_execution', unitPrice: '9', updatedAt: '' } }))).code).toBe(ErrorCode.Unauthenticated);
    for (const [bad, loc] of [
      [{ kind: 'nope', basis: 'per_execution', unitPrice: '1' }, ['body', 'kind']],
      [{ kind: 'workflow', basis: 'per_year', unitPrice: '1' }, ['body', 'basis']],
      [{ kind: 'workflow', basis: 'per_execution', unitPrice: '-1' }, ['body', 'unit_price']],
      [{ kind: 'workflow', basis: 'per_execution', unitPrice: '1e3' }, ['body', 'unit_price']],
      [{ kind: 'workflow', basis: 'per_execution', unitPrice: '0.0000001' }, ['body', 'unit_price']],
    ] as const) {
      const err = await rejection(b.client.setPrice({ actor: ADMIN, price: { ...bad, updatedAt: '' } }));
      expect(err.code).toBe(ErrorCode.InvalidArgument);
      expect(firstLoc(err)).toEqual(loc);
    }
    await expect(b.client.admit(admitRequest({ apiKeyId: 301, kind: 'workflow' }))).resolves.toMatchObject({ reserved: '1' });
    await expect(b.client.setPrice({ actor: ADMIN, price: { kind: 'workflow', basis: 'per_execution', unitPrice: '2.5', updatedAt: '' } })).resolves.toMatchObject({
      unitPrice: '2.5',
    });
    await expect(b.client.admit(admitRequest({ apiKeyId: 301, kind: 'workflow', quota: '10' }))).resolves.toEqual({ reserved: '2.5', remaining: '6.5', basis: 'per_execution' });
  });

  it('builds the current month bill from the ledger by kind, app and key; its total is the sum of the charges', async () => {
    if (!b) return;
    await run(40, 401, 'agent', 'app-a');
    await run(40, 401, 'agent', 'app-a');
    await run(40, 401, 'chatbot', 'app-b');
    await run(40, 402, 'agent', 'app-a');
    await run(40, 402, 'agent', 'app-a', 'refund');
    await run(41, 410, 'agent', 'app-a');
    const bill = await b.client.getBill({ actor: owner(40), accountId: 0, month: thisMonth() });
    expect(bill).toMatchObject({ accountId: 40, month: thisMonth(), frozen: false, total: '4' });
    expect(bill.lines).toEqual([
      { kind: 'agent', appId: 'app-a', apiKeyId: 401, count: 2, amount: '2' },
      { kind: 'agent', appId: 'app-a', apiKeyId: 402, count: 1, amount: '1' },
      { kind: 'chatbot', appId: 'app-b', apiKeyId: 401, count: 1, amount: '1' },
    ]);
    const [ledger] = await b.sql<{ total: string }>("SELECT sum(amount)::text AS total FROM ledger_entries WHERE account_id = 40 AND type = 'charge'");
    expect(Number(bill.total)).toBe(Number(ledger.total));
    expect(bill.lines.reduce((s, l) => s + Number(l.amount), 0)).toBe(Number(bill.total));
  });

  it("refuses another account's bill (403) but lets an admin read any", async () => {
    if (!b) return;
    expect((await rejection(b.client.getBill({ actor: owner(41), accountId: 40, month: thisMonth() }))).code).toBe(ErrorCode.PermissionDenied);
    await expect(b.client.getBill({ actor: ADMIN, accountId: 40, month: thisMonth() })).resolves.toMatchObject({ accountId: 40, total: '4' });
    expect((await rejection(b.client.getBill({ accountId: 40, month: thisMonth() }))).code).toBe(ErrorCode.Unauthenticated);
  });

  it('rejects malformed and future months', async () => {
    if (!b) return;
    for (const month of ['2026-13', '26-01', 'now', '', '0000-01', '1969-12', '2999-01']) {
      const err = await rejection(b.client.getBill({ actor: owner(40), accountId: 0, month }));
      expect(err.code).toBe(ErrorCode.InvalidArgument);
      expect(firstLoc(err)).toEqual(['path', 'month']);
    }
  });

  it('freezes a past month on first read: later ledger rows do not change it', async () => {
    if (!b) return;
    const insert = (amount: string, at: string) =>
      b!.sql(
        "INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis, created_at) VALUES (420, 42, 'agent', 'old-app', $1, 'charge', $2, 'per_execution', $3)",
        [taskNo('old'), amount, at],
      );
    await insert('1.5', '2025-03-10T10:00:00Z');
    await insert('2.25', '2025-03-31T23:59:59Z');
    await insert('7', '2025-04-01T00:00:00Z');
    const first = await b.client.getBill({ actor: owner(42), accountId: 0, month: '2025-03' });
    expect(first).toMatchObject({ frozen: true, total: '3.75', lines: [{ kind: 'agent', appId: 'old-app', apiKeyId: 420, count: 2, amount: '3.75' }] });
    await insert('100', '2025-03-15T00:00:00Z');
    await expect(b.client.getBill({ actor: owner(42), accountId: 0, month: '2025-03' })).resolves.toEqual(first);
    await expect(b.client.getBill({ actor: owner(42), accountId: 0, month: '2025-04' })).resolves.toMatchObject({ frozen: true, total: '7' });
  });

  it('reports usage by day and kind over a range, for an account or one of its keys', async () => {
    if (!b) return;
    const today = new Date().toISOString().slice(0, 10);
    const all = await b.client.queryUsage({ actor: owner(40), accountId: 0, apiKeyId: 0, from: '', to: '' });
    expect(all.rows).toEqual([
      { day: today, kind: 'agent', count: 3, amount: '3' },
      { day: today, kind: 'chatbot', count: 1, amount: '1' },
    ]);
    expect(all.total).toBe('4');
    const oneKey = await b.client.queryUsage({ actor: owner(40), accountId: 0, apiKeyId: 402, from: today, to: '' });
    expect(oneKey.rows).toEqual([{ day: today, kind: 'agent', count: 1, amount: '1' }]);
    const past = await b.client.queryUsage({ actor: owner(42), accountId: 0, apiKeyId: 0, from: '2025-03-01', to: '2025-04-02' });
    expect(past.rows.map((r) => [r.day, r.amount])).toEqual([
      ['2025-03-10', '1.5'],
      ['2025-03-15', '100'],
      ['2025-03-31', '2.25'],
      ['2025-04-01', '7'],
    ]);
  });

  it("hides another account's key and usage", async () => {
    if (!b) return;
    const othersKey = await b.client.queryUsage({ actor: owner(41), accountId: 0, apiKeyId: 401, from: '', to: '' });
    const noKey = await b.client.queryUsage({ actor: owner(41), accountId: 0, apiKeyId: 999_999, from: '', to: '' });
    expect(othersKey).toMatchObject({ accountId: 41, total: '0', rows: [] });
    expect(othersKey).toEqual(noKey);
    expect((await rejection(b.client.queryUsage({ actor: owner(41), accountId: 40, apiKeyId: 0, from: '', to: '' }))).code).toBe(ErrorCode.PermissionDenied);
    for (const [range, loc] of [
      [{ from: 'yesterday', to: '' }, ['query', 'from']],
      [{ from: '2026-02-31', to: '' }, ['query', 'from']],
      [{ from: '2025-01-01', to: '2025-02-29' }, ['query', 'to']],
      [{ from: '2025-05-01', to: '2025-04-01' }, ['query', 'to']],
      [{ from: '2020-01-01', to: '2025-01-01' }, ['query', 'to']],
    ] as const) {
      const err = await rejection(b.client.queryUsage({ actor: owner(40), accountId: 0, apiKeyId: 0, ...range }));
      expect(err.code).toBe(ErrorCode.InvalidArgument);
      expect(firstLoc(err)).toEqual(loc);
    }
  });

  it('counts docs-API requests per fixed hourly window across callers', async () => {
    if (!b) return;
    const hits = await Promise.all(Array.from({ length: 5 }, () => b!.client.hitRateLimit({ bucket: 'docs:test', limit: 3, windowSeconds: 3600, hits: 1 })));
    expect(hits.filter((h) => h.allowed)).toHaveLength(3);
    expect(hits.map((h) => h.remaining).sort()).toEqual([0, 0, 0, 1, 2]);
    const nextHour = Math.floor(Date.now() / 3_600_000 + 1) * 3600;
    for (const h of hits) expect([nextHour, nextHour + 3600]).toContain(h.reset);
    expect((await rejection(b.client.hitRateLimit({ bucket: '', limit: 3, windowSeconds: 3600, hits: 1 }))).code).toBe(ErrorCode.InvalidArgument);
    expect((await rejection(b.client.hitRateLimit({ bucket: 'x', limit: 0, windowSeconds: 3600, hits: 1 }))).code).toBe(ErrorCode.InvalidArgument);
  });

  it('counts several hits in one call and says where the window stands after them', async () => {
    if (!b) return;
    const first = await b.client.hitRateLimit({ bucket: 'docs:batch', limit: 10, windowSeconds: 3600, hits: 4 });
    expect(first).toMatchObject({ allowed: true, count: 4, remaining: 6 });
    const second = await b.client.hitRateLimit({ bucket: 'docs:batch', limit: 10, windowSeconds: 3600, hits: 7 });
    expect(second).toMatchObject({ allowed: false, count: 11, remaining: 0 });
    const single = await b.client.hitRateLimit({ bucket: 'docs:batch', limit: 10, windowSeconds: 3600, hits: 1 });
    expect(single.count).toBe(12);
    expect((await rejection(b.client.hitRateLimit({ bucket: 'docs:batch', limit: 10, windowSeconds: 3600, hits: -2 }))).code).toBe(ErrorCode.InvalidArgument);
    expect((await rejection(b.client.hitRateLimit({ bucket: 'docs:batch', limit: 10, windowSeconds: 3600, hits: 1_000_000 }))).code).toBe(ErrorCode.InvalidArgument);
  });
});
