import pg from 'pg';
import { ErrorCode, HotPool, TaskStatus, silentLogger, taskStatusSubject, type TaskStatusEvent } from '@tollgate/kit';
import { createBillingDb } from '../../src/db';
import { AdmissionRepo } from '../../src/repo/admission-repo';
import { RateRepo } from '../../src/repo/rate-repo';
import { expireAdmissions } from '../../src/usecases/expire-admissions';
import { admitRequest, eventually, rejection, startBilling, taskNo, type BillingHarness } from './harness';

const ADMIN = { accountId: 1, isAdmin: true, apiKeyId: 0 };

describe('Settle: charge, refund, idempotency, batches, leases', () => {
  let b: BillingHarness | null;
  beforeAll(async () => {
    b = await startBilling();
  });
  afterAll(async () => {
    await b?.stop();
  });

  const usage = async (apiKeyId: number) =>
    (await b!.sql<{ used_quota: string; reserved: string; in_flight: number }>('SELECT used_quota::text, reserved::text, in_flight FROM key_usage WHERE api_key_id = $1', [apiKeyId]))[0];
  const ledger = async (taskNumber: string) =>
    b!.sql<{ type: string; amount: string }>('SELECT type, amount::text FROM ledger_entries WHERE task_number = $1 ORDER BY id', [taskNumber]);

  it('charges a reservation into used_quota and releases the slot', async () => {
    if (!b) return;
    const req = admitRequest({ apiKeyId: 201, quota: '5' });
    await expect(b.client.admit(req)).resolves.toEqual({ reserved: '1', remaining: '4', basis: 'per_execution' });
    await expect(b.client.settle({ taskNumber: req.taskNumber, outcome: 'charge' })).resolves.toEqual({ charged: '1', alreadySettled: false, state: 'charged' });
    expect(await usage(201)).toEqual({ used_quota: '1.000000', reserved: '0.000000', in_flight: 0 });
    expect((await ledger(req.taskNumber)).map((l) => [l.type, Number(l.amount)])).toEqual([['reserve', 1], ['charge', 1]]);
    const [u] = (await b.client.getUsage({ apiKeyIds: [201, 999] })).items;
    expect(u).toEqual({ apiKeyId: 201, usedQuota: '1', reserved: '0', inFlight: 0 });
  });

  it('refunds a failed execution: nothing used, reservation and slot released', async () => {
    if (!b) return;
    const req = admitRequest({ apiKeyId: 202, quota: '1' });
    await b.client.admit(req);
    expect((await rejection(b.client.admit(admitRequest({ apiKeyId: 202, quota: '1' })))).details.limit).toBe('quota');
    await expect(b.client.settle({ taskNumber: req.taskNumber, outcome: 'refund' })).resolves.toMatchObject({ charged: '0', state: 'refunded' });
    expect(await usage(202)).toEqual({ used_quota: '0.000000', reserved: '0.000000', in_flight: 0 });
    expect((await ledger(req.taskNumber)).map((l) => l.type)).toEqual(['reserve', 'refund']);
    await expect(b.client.admit(admitRequest({ apiKeyId: 202, quota: '1' }))).resolves.toMatchObject({ remaining: '0' });
  });

  it('settles once: a retry, or charge and refund racing, never charges twice', async () => {
    if (!b) return;
    const req = admitRequest({ apiKeyId: 203, quota: '10' });
    await b.client.admit(req);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => b!.client.settle({ taskNumber: req.taskNumber, outcome: i % 2 ? 'refund' : 'charge' })),
    );
    expect(results.filter((r) => !r.alreadySettled)).toHaveLength(1);
    const final = results.find((r) => !r.alreadySettled)!;
    for (const r of results) expect(r.state).toBe(final.state);
    const rows = await ledger(req.taskNumber);
    expect(rows.filter((l) => l.type !== 'reserve')).toHaveLength(1);
    expect(Number((await usage(203)).used_quota)).toBe(final.state === 'charged' ? 1 : 0);
    await expect(b.client.settle({ taskNumber: req.taskNumber, outcome: 'charge' })).resolves.toMatchObject({ alreadySettled: true, state: final.state });
  });

  it('rejects unknown task numbers and bad outcomes', async () => {
    if (!b) return;
    expect((await rejection(b.client.settle({ taskNumber: 'never-admitted', outcome: 'charge' }))).code).toBe(ErrorCode.NotFound);
    const req = admitRequest({ apiKeyId: 204 });
    await b.client.admit(req);
    expect((await rejection(b.client.settle({ taskNumber: req.taskNumber, outcome: 'maybe' }))).code).toBe(ErrorCode.InvalidArgument);
    expect((await rejection(b.client.settle({ taskNumber: req.taskNumber, outcome: 'charge', units: { inputTokens: -1, outputTokens: 0, seconds: '' } }))).code).toBe(
      ErrorCode.InvalidArgument,
    );
  });

  it('settles a batch in one call: charges and refunds, each once, unknown task numbers reported as not found', async () => {
    if (!b) return;
    const n = { a: taskNo('batch'), b: taskNo('batch'), c: taskNo('batch') };
    for (const t of Object.values(n)) await b.client.admit(admitRequest({ apiKeyId: 205, accountId: 3, taskNumber: t }));
    const out = await b.client.settleBatch({
      items: [
        { taskNumber: n.a, outcome: 'charge', units: undefined },
        { taskNumber: n.b, outcome: 'refund', units: undefined },
        { taskNumber: n.a, outcome: 'refund', units: undefined },
        { taskNumber: 'never-admitted', outcome: 'charge', units: undefined },
      ],
    });
    expect(out.items).toEqual([
      { taskNumber: n.a, found: true, charged: '1', alreadySettled: false, state: 'charged' },
      { taskNumber: n.b, found: true, charged: '0', alreadySettled: false, state: 'refunded' },
      { taskNumber: n.a, found: true, charged: '1', alreadySettled: false, state: 'charged' },
      { taskNumber: 'never-admitted', found: false, charged: '0', alreadySettled: false, state: 'refunded' },
    ]);
    const again = await b.client.settleBatch({ items: [{ taskNumber: n.a, outcome: 'refund', units: undefined }] });
    expect(again.items[0]).toMatchObject({ alreadySettled: true, state: 'charged', charged: '1' });
    expect(await usage(205)).toEqual({ used_quota: '1.000000', reserved: '1.000000', in_flight: 1 });
    expect((await ledger(n.a)).map((l) => l.type)).toEqual(['reserve', 'charge']);
    // task status events settle nothing: the tasks service settles its executions itself
    await b.bus.publish<TaskStatusEvent>(taskStatusSubject(n.c), { task_number: n.c, status: TaskStatus.Completed, kind: 'agent', app_id: 'demo-app', account_id: 3, api_key_id: 205, at: new Date().toISOString() });
    await new Promise((r) => setTimeout(r, 300));
    expect((await b.sql<{ state: string }>('SELECT state FROM admissions WHERE task_number = $1', [n.c]))[0].state).toBe('open');
  });

  it('leases: an admission with a lease is listed once it runs out, renewing extends it, settling removes it', async () => {
    if (!b) return;
    const leased = admitRequest({ apiKeyId: 208, leaseSeconds: 60 });
    const unleased = admitRequest({ apiKeyId: 208 });
    await b.client.admit(leased);
    await b.client.admit(unleased);
    expect((await b.client.expiredAdmissions({ limit: 10 })).taskNumbers).not.toContain(leased.taskNumber);
    await b.sql("UPDATE admissions SET lease_expires_at = now() - interval '1 second' WHERE task_number = $1", [leased.taskNumber]);
    await b.sql("UPDATE admissions SET admitted_at = now() - interval '1 hour' WHERE task_number = $1", [unleased.taskNumber]);
    expect((await b.client.expiredAdmissions({ limit: 1000 })).taskNumbers).toContain(leased.taskNumber);
    expect((await b.client.expiredAdmissions({ limit: 1000 })).taskNumbers).not.toContain(unleased.taskNumber);
    await expect(b.client.renewAdmissions({ taskNumbers: [leased.taskNumber, unleased.taskNumber, 'never-admitted'], leaseSeconds: 60 })).resolves.toEqual({ renewed: 1 });
    expect((await b.client.expiredAdmissions({ limit: 1000 })).taskNumbers).not.toContain(leased.taskNumber);
    expect((await rejection(b.client.renewAdmissions({ taskNumbers: [leased.taskNumber], leaseSeconds: 0 }))).code).toBe(ErrorCode.InvalidArgument);
    expect((await rejection(b.client.admit(admitRequest({ apiKeyId: 208, leaseSeconds: -5 })))).code).toBe(ErrorCode.InvalidArgument);
    await b.sql("UPDATE admissions SET lease_expires_at = now() - interval '1 second' WHERE task_number = $1", [leased.taskNumber]);
    await b.client.settle({ taskNumber: leased.taskNumber, outcome: 'refund' });
    await b.client.settle({ taskNumber: unleased.taskNumber, outcome: 'refund' });
    expect((await b.client.expiredAdmissions({ limit: 1000 })).taskNumbers).not.toContain(leased.taskNumber);
  });

  it('keeps only open admissions in the sweeps\' indexes, and the sweeps read those indexes', async () => {
    if (!b) return;
    const leased = Array.from({ length: 40 }, () => admitRequest({ apiKeyId: 209, leaseSeconds: 60, concurrencyLimit: 100, rpmLimit: 1000 }));
    const unleased = Array.from({ length: 40 }, () => admitRequest({ apiKeyId: 209, concurrencyLimit: 100, rpmLimit: 1000 }));
    for (const req of [...leased, ...unleased]) await b.client.admit(req);
    const settled = [...leased.slice(3), ...unleased.slice(2)];
    await b.client.settleBatch({ items: settled.map((r) => ({ taskNumber: r.taskNumber, outcome: 'charge' })) });
    // A settlement writes its row version into neither index; VACUUM drops the entries of the versions before it.
    await b.sql('VACUUM ANALYZE admissions');
    const entries = async (index: string) => Number((await b!.sql<{ n: string }>(`SELECT reltuples::bigint::text AS n FROM pg_class WHERE relname = $1`, [index]))[0]?.n);
    const open = async (leaseIs: string) => Number((await b!.sql<{ n: string }>(`SELECT count(*)::text AS n FROM admissions WHERE state = 'open' AND lease_expires_at ${leaseIs}`))[0].n);
    expect(await entries('admissions_open_lease_idx')).toBe(await open('IS NOT NULL'));
    expect(await entries('admissions_open_unleased_idx')).toBe(await open('IS NULL'));
    expect(await open('IS NOT NULL')).toBeLessThan(20);

    // With sequential scans priced out, each sweep's statement must be able to use its partial index.
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string) => (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(await plan(`SELECT task_number FROM admissions WHERE state = 'open' AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT 10`)).toContain('admissions_open_lease_idx');
      expect(await plan(`SELECT task_number FROM admissions WHERE state = 'open' AND lease_expires_at IS NULL AND admitted_at < now() - interval '1 hour' ORDER BY admitted_at LIMIT 10`)).toContain(
        'admissions_open_unleased_idx',
      );
    } finally {
      await client.end();
    }
  });

  it('prices by tokens: reserves the estimate, charges what was consumed (or delivered before a disconnect)', async () => {
    if (!b) return;
    await b.client.setPrice({ actor: ADMIN, price: { kind: 'chatbot', basis: 'per_output_token', unitPrice: '0.002', updatedAt: '' } });
    await b.client.setPrice({ actor: ADMIN, price: { kind: 'chatbot', basis: 'per_execution', unitPrice: '0', updatedAt: '' } });
    const req = admitRequest({ apiKeyId: 206, kind: 'chatbot', quota: '100', estimatedOutputTokens: 500 });
    await expect(b.client.admit(req)).resolves.toEqual({ reserved: '1', remaining: '99', basis: 'per_execution+per_output_token' });
    await expect(b.client.settle({ taskNumber: req.taskNumber, outcome: 'charge', units: { inputTokens: 40, outputTokens: 123, seconds: '' } })).resolves.toMatchObject({
      charged: '0.246',
    });
    expect(await usage(206)).toEqual({ used_quota: '0.246000', reserved: '0.000000', in_flight: 0 });
  });

  it('refunds admissions nobody settled once they outlive the TTL', async () => {
    if (!b) return;
    const req = admitRequest({ apiKeyId: 207, concurrencyLimit: 1 });
    await b.client.admit(req);
    expect((await rejection(b.client.admit(admitRequest({ apiKeyId: 207, concurrencyLimit: 1 })))).details.limit).toBe('concurrency');
    await b.sql("UPDATE admissions SET admitted_at = now() - interval '2 hours' WHERE task_number = $1", [req.taskNumber]);
    const swept = await startBillingSweep(b);
    expect(swept).toBe(1);
    await expect(b.client.admit(admitRequest({ apiKeyId: 207, concurrencyLimit: 1 }))).resolves.toMatchObject({ reserved: '1' });
    expect((await ledger(req.taskNumber)).map((l) => l.type)).toEqual(['reserve', 'refund']);
  });
});

async function startBillingSweep(b: BillingHarness): Promise<number> {
  const db = createBillingDb(b.url);
  const hot = new HotPool(b.url, { max: 1, maxWaiting: 10 });
  try {
    return await expireAdmissions({ admissions: new AdmissionRepo(db, hot), rates: new RateRepo(db, hot), log: silentLogger() }, 3600);
  } finally {
    await hot.end();
    await db.$disconnect();
  }
}
