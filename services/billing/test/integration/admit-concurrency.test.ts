import { ErrorCode } from '@tollgate/kit';
import { admitRequest, rejection, startBilling, taskNo, type BillingHarness } from './harness';

// No overspend: the reservation, the rpm count and the concurrency slot are one conditional statement.
describe('Admit under concurrency (real PostgreSQL, gRPC loopback)', () => {
  let b: BillingHarness | null;
  beforeAll(async () => {
    b = await startBilling();
  });
  afterAll(async () => {
    await b?.stop();
  });

  it('admits exactly 100 of 1,000 concurrent executions against a quota of 100 at price 1.0', async () => {
    if (!b) return;
    const client = b.client;
    const calls = Array.from({ length: 1000 }, (_, i) =>
      client.admit(admitRequest({ apiKeyId: 101, accountId: 7, quota: '100', rpmLimit: 100_000, concurrencyLimit: 100_000, taskNumber: taskNo(`q${i}`) })),
    );
    const results = await Promise.allSettled(calls);
    const admitted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(admitted).toHaveLength(100);
    expect(refused).toHaveLength(900);
    for (const r of refused) {
      expect(r.reason.code).toBe(ErrorCode.ResourceExhausted);
      expect(r.reason.details.limit).toBe('quota');
      expect(r.reason.message).toMatch(/insufficient quota/);
    }
    const [usage] = await b.sql<{ used_quota: string; reserved: string; in_flight: number }>(
      'SELECT used_quota::text, reserved::text, in_flight FROM key_usage WHERE api_key_id = 101',
    );
    expect(Number(usage.reserved)).toBe(100);
    expect(Number(usage.used_quota)).toBe(0);
    expect(usage.in_flight).toBe(100);
    const [ledger] = await b.sql<{ n: number; total: string }>("SELECT count(*)::int AS n, sum(amount)::text AS total FROM ledger_entries WHERE api_key_id = 101 AND type = 'reserve'");
    expect(ledger.n).toBe(100);
    expect(Number(ledger.total)).toBe(100);
  });

  it('admits exactly the concurrency limit of many simultaneous executions, and frees a slot on settlement', async () => {
    if (!b) return;
    const client = b.client;
    const requests = Array.from({ length: 200 }, (_, i) => admitRequest({ apiKeyId: 102, accountId: 7, concurrencyLimit: 7, rpmLimit: 100_000, taskNumber: taskNo(`c${i}`) }));
    const results = await Promise.allSettled(requests.map((r) => client.admit(r)));
    const admittedIdx = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(admittedIdx).toHaveLength(7);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason.details).toEqual({ limit: 'concurrency', retryAfterSeconds: 1 });
    expect(refused.reason.message).toMatch(/concurrency limit/);

    await client.settle({ taskNumber: requests[admittedIdx[0]].taskNumber, outcome: 'charge' });
    await expect(client.admit(admitRequest({ apiKeyId: 102, accountId: 7, concurrencyLimit: 7, rpmLimit: 100_000 }))).resolves.toMatchObject({ reserved: '1' });
    const again = await rejection(client.admit(admitRequest({ apiKeyId: 102, accountId: 7, concurrencyLimit: 7, rpmLimit: 100_000 })));
    expect(again.details.limit).toBe('concurrency');
  });

  it('admits exactly the requests-per-minute limit within one minute', async () => {
    if (!b) return;
    const client = b.client;
    // Keep the burst inside one clock minute: the window is the current minute.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => client.admit(admitRequest({ apiKeyId: 103, accountId: 7, rpmLimit: 12, concurrencyLimit: 1000, taskNumber: taskNo(`r${i}`) }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(12);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason.details.limit).toBe('rpm');
    expect(refused.reason.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.reason.details.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.reason.message).toMatch(/12 requests per minute/);
  });

  it('uses the account level defaults when the key sets no limit', async () => {
    if (!b) return;
    const client = b.client;
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => client.admit(admitRequest({ apiKeyId: 104, accountId: 8, level: 'free', taskNumber: taskNo(`d${i}`) }))),
    );
    // free: 5 concurrent executions by default
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
  });

  it('refuses a second admission with the same task number without reserving twice', async () => {
    if (!b) return;
    const req = admitRequest({ apiKeyId: 105, accountId: 8, quota: '10' });
    await b.client.admit(req);
    const err = await rejection(b.client.admit(req));
    expect(err.code).toBe(ErrorCode.AlreadyExists);
    const [usage] = await b.sql<{ reserved: string }>('SELECT reserved::text FROM key_usage WHERE api_key_id = 105');
    expect(Number(usage.reserved)).toBe(1);
  });

  it('rejects malformed admissions', async () => {
    if (!b) return;
    for (const bad of [{ kind: 'nope' }, { quota: '-1' }, { quota: 'abc' }, { taskNumber: '' }, { apiKeyId: 0 }, { basis: 'per_fortnight' }]) {
      const err = await rejection(b.client.admit(admitRequest(bad)));
      expect(err.code).toBe(ErrorCode.InvalidArgument);
    }
  });

  it('treats an empty quota as unlimited and a zero quota as exhausted', async () => {
    if (!b) return;
    await expect(b.client.admit(admitRequest({ apiKeyId: 106, quota: '' }))).resolves.toMatchObject({ remaining: '' });
    const err = await rejection(b.client.admit(admitRequest({ apiKeyId: 107, quota: '0' })));
    expect(err.details.limit).toBe('quota');
  });
});
