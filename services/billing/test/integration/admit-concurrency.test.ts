import { ErrorCode, fromItemError } from '@tollgate/kit';
import type { AdmitResult } from '@tollgate/protos/billing';
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

  it('holds a quota set by SetKeyQuota against admissions that still carry the old one, and refuses one below used + reserved', async () => {
    if (!b) return;
    const client = b.client;
    const admitWith = (quota: string, label: string) => client.admit(admitRequest({ apiKeyId: 109, accountId: 7, quota, rpmLimit: 100_000, concurrencyLimit: 100_000, taskNumber: taskNo(label) }));
    for (let i = 0; i < 5; i++) await admitWith('30', `old${i}`);
    // 5 reserved: 4 is refused at body.quota, 8 is taken.
    const low = await rejection(client.setKeyQuota({ apiKeyId: 109, accountId: 7, quota: '4', force: false }));
    expect(low.code).toBe(ErrorCode.InvalidArgument);
    expect(low.details.issues).toEqual([expect.objectContaining({ loc: ['body', 'quota'], type: 'less_than_used' })]);
    expect(low.message).toContain('(5)');
    await expect(client.setKeyQuota({ apiKeyId: 109, accountId: 7, quota: '8', force: false })).resolves.toMatchObject({ reserved: '5' });
    // Callers that still have 30 cached: 3 more fit under 8, the rest are refused, concurrently or not.
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => admitWith('30', `stale${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const [usage] = await b.sql<{ reserved: string; quota: string }>('SELECT reserved::text, quota::text FROM key_usage WHERE api_key_id = 109');
    expect(Number(usage.reserved)).toBe(8);
    expect(Number(usage.quota)).toBe(8);
    // Unlimited again, then force below used + reserved (an update that failed, put back).
    await client.setKeyQuota({ apiKeyId: 109, accountId: 7, quota: '', force: false });
    await admitWith('8', 'unlimited-now');
    await expect(client.setKeyQuota({ apiKeyId: 109, accountId: 7, quota: '2', force: true })).resolves.toMatchObject({ reserved: '9' });
    expect((await rejection(admitWith('', 'over'))).details.limit).toBe('quota');
    // A key never admitted gets its row, and admissions use that quota.
    await client.setKeyQuota({ apiKeyId: 110, accountId: 7, quota: '1', force: false });
    await client.admit(admitRequest({ apiKeyId: 110, accountId: 7, quota: '50', taskNumber: taskNo('fresh1') }));
    expect((await rejection(client.admit(admitRequest({ apiKeyId: 110, accountId: 7, quota: '50', taskNumber: taskNo('fresh2') })))).details.limit).toBe('quota');
    expect((await rejection(client.setKeyQuota({ apiKeyId: 111, accountId: 7, quota: 'lots', force: false }))).code).toBe(ErrorCode.InvalidArgument);
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
  // The tasks service's coalescing admitter sends what queued up during one call in the next.
  describe('AdmitBatch', () => {
    const refusalOf = (r: AdmitResult) => fromItemError({ code: r.errorCode, message: r.errorMessage, details: r.errorDetails });

    it('answers each item as Admit would, in order: admitted, over quota, already admitted, malformed', async () => {
      if (!b) return;
      const key = { apiKeyId: 201, accountId: 7, quota: '2', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      const { items } = await b.client.admitBatch({
        settlements: [], finishing: [],
        items: ['b1', 'b2', 'b3'].map((label) => admitRequest({ ...key, taskNumber: taskNo(label) })),
      });
      expect(items.map((i) => i.taskNumber.split('-')[0])).toEqual(['b1', 'b2', 'b3']);
      const admitted = items.filter((i) => i.admitted);
      expect(admitted).toHaveLength(2);
      expect(admitted[0].admitted).toMatchObject({ reserved: '1' });
      const over = refusalOf(items.find((i) => !i.admitted)!);
      expect(over.code).toBe(ErrorCode.ResourceExhausted);
      expect(over.details.limit).toBe('quota');
      expect(over.message).toMatch(/insufficient quota/);

      const second = await b.client.admitBatch({
        settlements: [], finishing: [],
        items: [admitRequest({ apiKeyId: 202, accountId: 7, taskNumber: admitted[0].taskNumber }), admitRequest({ apiKeyId: 202, accountId: 7, kind: 'teleport' }), admitRequest({ apiKeyId: 202, accountId: 7 })],
      });
      expect(refusalOf(second.items[0]).code).toBe(ErrorCode.AlreadyExists);
      const malformed = refusalOf(second.items[1]);
      expect(malformed.code).toBe(ErrorCode.InvalidArgument);
      expect(malformed.details.issues).toEqual([expect.objectContaining({ loc: ['kind'] })]);
      expect(second.items[2].admitted).toMatchObject({ reserved: '1' });
      const [usage] = await b.sql<{ reserved: string; in_flight: number }>('SELECT reserved::text, in_flight FROM key_usage WHERE api_key_id = 202');
      expect({ reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ reserved: 1, inFlight: 1 });
    });

    it('admits exactly 100 of 1,000 executions sent in ten concurrent batches against a quota of 100', async () => {
      if (!b) return;
      const batches = Array.from({ length: 10 }, (_, n) => ({
        items: Array.from({ length: 100 }, (_, i) => admitRequest({ apiKeyId: 203, accountId: 7, quota: '100', rpmLimit: 100_000, concurrencyLimit: 100_000, taskNumber: taskNo(`bq${n}-${i}`) })),
      }));
      const answers = (await Promise.all(batches.map((batch) => b!.client.admitBatch({ ...batch, settlements: [], finishing: [] })))).flatMap((a) => a.items);
      expect(answers.filter((a) => a.admitted)).toHaveLength(100);
      for (const refused of answers.filter((a) => !a.admitted)) expect(refusalOf(refused).details.limit).toBe('quota');
      const [usage] = await b.sql<{ reserved: string; in_flight: number }>('SELECT reserved::text, in_flight FROM key_usage WHERE api_key_id = 203');
      expect(Number(usage.reserved)).toBe(100);
      expect(usage.in_flight).toBe(100);
    });

    it("decides a batch of known keys in one statement, each item as if admitted one after another", async () => {
      if (!b) return;
      const quota = { apiKeyId: 207, accountId: 7, quota: '5', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      const slots = { apiKeyId: 208, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 2 };
      const rpm = { apiKeyId: 209, accountId: 7, quota: '', rpmLimit: 3, concurrencyLimit: 100_000 };
      // Each key's usage row exists once it was admitted before.
      for (const key of [quota, slots, rpm]) expect((await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('first') })] })).items[0].admitted).toBeDefined();
      const items = [
        ...Array.from({ length: 6 }, (_, i) => admitRequest({ ...quota, taskNumber: taskNo(`q${i}`) })),
        ...Array.from({ length: 3 }, (_, i) => admitRequest({ ...slots, taskNumber: taskNo(`c${i}`) })),
        ...Array.from({ length: 4 }, (_, i) => admitRequest({ ...rpm, taskNumber: taskNo(`r${i}`) })),
      ];
      const { items: answers } = await b.client.admitBatch({ settlements: [], finishing: [], items });
      expect(answers.map((a) => a.taskNumber)).toEqual(items.map((i) => i.taskNumber));
      const outcome = (a: AdmitResult) => (a.admitted ? `remaining ${a.admitted.remaining}` : refusalOf(a).details.limit);
      expect(answers.map(outcome)).toEqual([
        'remaining 3', 'remaining 2', 'remaining 1', 'remaining 0', 'quota', 'quota',
        'remaining ', 'concurrency', 'concurrency',
        'remaining ', 'remaining ', 'rpm', 'rpm',
      ]);
      const admitted = answers.filter((a) => a.admitted).map((a) => a.taskNumber);
      const rows = await b.sql<{ tx: string; ledger: number }>(
        "SELECT xmin::text AS tx, (SELECT count(*)::int FROM ledger_entries l WHERE l.task_number = a.task_number AND l.type = 'reserve') AS ledger FROM admissions a WHERE task_number = ANY($1)",
        [items.map((i) => i.taskNumber)],
      );
      expect(rows).toHaveLength(admitted.length);
      expect(rows.every((r) => r.ledger === 1)).toBe(true);
      // One statement, one transaction: every admission of the batch was written by the same one.
      expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
      const usage = await b.sql<{ id: number; reserved: string; in_flight: number; rpm_count: number }>(
        'SELECT api_key_id AS id, reserved::text, in_flight, rpm_count FROM key_usage WHERE api_key_id = ANY($1) ORDER BY api_key_id',
        [[207, 208, 209]],
      );
      expect(usage.map((u) => [u.id, Number(u.reserved), u.in_flight, u.rpm_count])).toEqual([
        [207, 5, 5, 5],
        [208, 2, 2, 2],
        [209, 3, 3, 3],
      ]);
    });

    it('admits exactly each quota when concurrent batches carry several keys in different orders, settlements alongside', async () => {
      if (!b) return;
      const keys = [211, 212, 213, 214];
      const item = (apiKeyId: number, label: string) => admitRequest({ apiKeyId, accountId: 7, quota: '30', rpmLimit: 100_000, concurrencyLimit: 100_000, taskNumber: taskNo(label) });
      for (const k of keys) await b.client.admitBatch({ settlements: [], finishing: [], items: [item(k, 'first')] });
      const batches = Array.from({ length: 8 }, (_, n) => Array.from({ length: 40 }, (_, i) => item(keys[(i * (n % 2 ? 1 : 3) + n) % 4], `m${n}-${i}`)));
      const answers = (await Promise.all(batches.map((items) => b!.client.admitBatch({ settlements: [], finishing: [], items })))).flatMap((a) => a.items);
      for (const refused of answers.filter((a) => !a.admitted)) expect(refusalOf(refused).details.limit).toBe('quota');
      const reservedOf = async () =>
        (await b!.sql<{ reserved: string }>('SELECT reserved::text FROM key_usage WHERE api_key_id = ANY($1) ORDER BY api_key_id', [keys])).map((u) => Number(u.reserved));
      expect(await reservedOf()).toEqual([30, 30, 30, 30]);
      const refunded = answers.filter((a) => a.admitted).slice(0, 20);
      await Promise.all([
        b.client.admitBatch({ finishing: [], settlements: refunded.map((a) => ({ taskNumber: a.taskNumber, outcome: 'refund' })), items: keys.map((k) => item(k, 'after')) }),
        b.client.admitBatch({ settlements: [], finishing: [], items: [...keys].reverse().map((k) => item(k, 'race')) }),
      ]);
      // Every key's reservation is still the sum of its open admissions, and within its quota.
      const open = await b.sql<{ reserved: string }>(
        "SELECT COALESCE(sum(a.reserved), 0)::text AS reserved FROM unnest($1::int[]) AS k(id) LEFT JOIN admissions a ON a.api_key_id = k.id AND a.state = 'open' GROUP BY k.id ORDER BY k.id",
        [keys],
      );
      const reserved = await reservedOf();
      expect(reserved).toEqual(open.map((o) => Number(o.reserved)));
      for (const r of reserved) expect(r).toBeLessThanOrEqual(30);
      expect(reserved.reduce((sum, r) => sum + r, 0)).toBeGreaterThan(120 - 20);
    });

    it("fails only the key whose row PostgreSQL cannot update, not the other keys of the batch", async () => {
      if (!b) return;
      const full = { apiKeyId: 215, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      const other = { ...full, apiKeyId: 216 };
      for (const key of [full, other]) await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('first') })] });
      // PostgreSQL refuses this key's row alone (a data exception, as an overflow would be).
      await b.sql(`CREATE OR REPLACE FUNCTION refuse_key_215() RETURNS trigger AS $$
        BEGIN IF NEW.api_key_id = 215 THEN RAISE EXCEPTION 'numeric field overflow' USING ERRCODE = '22003'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
      await b.sql('CREATE TRIGGER refuse_215 BEFORE UPDATE ON key_usage FOR EACH ROW EXECUTE FUNCTION refuse_key_215()');
      try {
        const { items } = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...full, taskNumber: taskNo('over') }), admitRequest({ ...other, taskNumber: taskNo('fine') })] });
        expect(items[0].admitted).toBeUndefined();
        expect(items[1].admitted).toMatchObject({ reserved: '1' });
      } finally {
        await b.sql('DROP TRIGGER refuse_215 ON key_usage');
      }
    });

    it('holds a reservation that would pass what an amount holds at the largest amount, instead of failing the statement', async () => {
      if (!b) return;
      const key = { apiKeyId: 217, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('edge-first') })] });
      await b.sql('UPDATE key_usage SET reserved = 99999999999999.5 WHERE api_key_id = 217');
      const { items } = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('edge') })] });
      expect(items[0].admitted).toMatchObject({ reserved: '1' });
      const rows = await b.sql<{ reserved: string }>('SELECT reserved::text AS reserved FROM key_usage WHERE api_key_id = 217');
      expect(rows[0].reserved).toBe('99999999999999.999999');
    });

    it('answers a task number repeated within one batch once as admitted and once as already admitted', async () => {
      if (!b) return;
      const key = { apiKeyId: 210, accountId: 7, quota: '10', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('first') })] });
      const twice = taskNo('twice');
      const { items } = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: twice }), admitRequest({ ...key, taskNumber: twice }), admitRequest({ ...key, taskNumber: taskNo('other') })] });
      expect(items.filter((i) => i.admitted)).toHaveLength(2);
      expect(items.filter((i) => !i.admitted).map((i) => refusalOf(i).code)).toEqual([ErrorCode.AlreadyExists]);
      const [usage] = await b.sql<{ reserved: string; in_flight: number }>('SELECT reserved::text, in_flight FROM key_usage WHERE api_key_id = 210');
      expect({ reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ reserved: 3, inFlight: 3 });
    });

    it('applies the settlements carried by a call before its admissions: a freed concurrency slot is taken at once', async () => {
      if (!b) return;
      const key = { apiKeyId: 205, accountId: 7, quota: '10', rpmLimit: 100_000, concurrencyLimit: 1 };
      const first = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('s1') })] });
      expect(first.items[0].admitted).toBeDefined();
      const blocked = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('s2') })] });
      expect(refusalOf(blocked.items[0]).details.limit).toBe('concurrency');
      const both = await b.client.admitBatch({
        finishing: [],
        settlements: [{ taskNumber: first.items[0].taskNumber, outcome: 'charge' }, { taskNumber: taskNo('never-admitted'), outcome: 'refund' }],
        items: [admitRequest({ ...key, taskNumber: taskNo('s3') })],
      });
      expect(both.items[0].admitted).toMatchObject({ reserved: '1' });
      expect(both.settlements.map((r) => [r.found, r.state, r.charged])).toEqual([[true, 'charged', '1'], [false, 'refunded', '0']]);
      const [usage] = await b.sql<{ used: string; reserved: string; in_flight: number }>('SELECT used_quota::text AS used, reserved::text, in_flight FROM key_usage WHERE api_key_id = 205');
      expect({ used: Number(usage.used), reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ used: 1, reserved: 1, inFlight: 1 });
    });

    it("does not count a call's finishing executions against the concurrency limit while they are open, and counts their reservations against the quota", async () => {
      if (!b) return;
      const key = { apiKeyId: 401, accountId: 7, quota: '3', rpmLimit: 100_000, concurrencyLimit: 1 };
      const admit = (name: string, finishing: string[] = []) => b!.client.admitBatch({ settlements: [], finishing, items: [admitRequest({ ...key, taskNumber: taskNo(name) })] });
      const first = (await admit('f1')).items[0];
      expect(first.admitted).toBeDefined();
      expect(refusalOf((await admit('f2')).items[0]).details.limit).toBe('concurrency');
      const other = { apiKeyId: 402, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 5 };
      const foreign = (await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...other, taskNumber: taskNo('foreign') })] })).items[0].taskNumber;
      // Another key's ended execution frees nothing here.
      expect(refusalOf((await admit('f3', [foreign])).items[0]).details.limit).toBe('concurrency');
      const second = (await admit('f4', [first.taskNumber])).items[0];
      expect(second.admitted).toMatchObject({ reserved: '1', remaining: '1' });
      // Settled since: the first no longer frees a slot, the second holds the only one.
      await b.client.settle({ taskNumber: first.taskNumber, outcome: 'charge' });
      expect(refusalOf((await admit('f5', [first.taskNumber])).items[0]).details.limit).toBe('concurrency');
      const third = (await admit('f6', [second.taskNumber])).items[0];
      expect(third.admitted).toMatchObject({ remaining: '0' });
      // The quota counts every open reservation, finishing or not: 1 charged + 2 reserved of 3.
      expect(refusalOf((await admit('f7', [second.taskNumber, third.taskNumber])).items[0]).details.limit).toBe('quota');
      const [usage] = await b.sql<{ used: string; reserved: string; in_flight: number }>('SELECT used_quota::text AS used, reserved::text, in_flight FROM key_usage WHERE api_key_id = 401');
      expect({ used: Number(usage.used), reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ used: 1, reserved: 2, inFlight: 2 });
    });

    it('frees finishing slots in the many-item statement as in the one-item statement', async () => {
      if (!b) return;
      const key = { apiKeyId: 403, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 2 };
      const items = (names: string[]) => names.map((n) => admitRequest({ ...key, taskNumber: taskNo(n) }));
      const running = (await b.client.admitBatch({ settlements: [], finishing: [], items: items(['m1', 'm2']) })).items;
      expect(running.every((i) => i.admitted)).toBe(true);
      const next = (await b.client.admitBatch({ settlements: [], finishing: [running[0].taskNumber], items: items(['m3', 'm4', 'm5']) })).items;
      expect(next.map((i) => (i.admitted ? 'admitted' : refusalOf(i).details.limit))).toEqual(['admitted', 'concurrency', 'concurrency']);
      const [usage] = await b.sql<{ in_flight: number }>('SELECT in_flight FROM key_usage WHERE api_key_id = 403');
      expect(usage.in_flight).toBe(3);
    });

    it('never frees a slot twice when the settlement of a finishing execution commits while the admission is decided', async () => {
      if (!b) return;
      // Limit 1; `running` holds the slot and `ended` is open until its settlement. Each admission
      // that names `ended` as finishing races that settlement; either order must refuse it.
      for (let round = 0; round < 20; round++) {
        const key = { apiKeyId: 500 + round, accountId: 7, quota: '', rpmLimit: 100_000, concurrencyLimit: 1 };
        const admit = (name: string, finishing: string[]) => b!.client.admitBatch({ settlements: [], finishing, items: [admitRequest({ ...key, taskNumber: taskNo(`${name}${round}`) })] });
        const ended = (await admit('ended', [])).items[0].taskNumber;
        expect((await admit('running', [ended])).items[0].admitted).toBeDefined();
        const [raced] = await Promise.all([admit('raced', [ended]), b.client.settle({ taskNumber: ended, outcome: 'charge' })]);
        expect(refusalOf(raced.items[0]).details.limit).toBe('concurrency');
        const [usage] = await b.sql<{ in_flight: number }>(`SELECT in_flight FROM key_usage WHERE api_key_id = ${key.apiKeyId}`);
        expect(usage.in_flight).toBe(1);
      }
    });

    it('refuses a call with a malformed settlement as a whole, settling and admitting none of it', async () => {
      if (!b) return;
      const key = { apiKeyId: 206, accountId: 7, quota: '10', rpmLimit: 100_000, concurrencyLimit: 100_000 };
      const first = await b.client.admitBatch({ settlements: [], finishing: [], items: [admitRequest({ ...key, taskNumber: taskNo('m1') })] });
      const refused = await rejection(b.client.admitBatch({ finishing: [], settlements: [{ taskNumber: first.items[0].taskNumber, outcome: 'maybe' }], items: [admitRequest({ ...key, taskNumber: taskNo('m2') })] }));
      expect(refused.code).toBe(ErrorCode.InvalidArgument);
      const [usage] = await b.sql<{ used: string; in_flight: number }>('SELECT used_quota::text AS used, in_flight FROM key_usage WHERE api_key_id = 206');
      expect({ used: Number(usage.used), inFlight: usage.in_flight }).toEqual({ used: 0, inFlight: 1 });
    });

    it('refuses a batch over its largest size as a whole, admitting none of it', async () => {
      if (!b) return;
      const items = Array.from({ length: 501 }, () => admitRequest({ apiKeyId: 204, accountId: 7 }));
      const refused = await rejection(b.client.admitBatch({ settlements: [], finishing: [], items }));
      expect(refused.code).toBe(ErrorCode.InvalidArgument);
      const finishing = Array.from({ length: 1_001 }, (_, i) => taskNo(`ended${i}`));
      const tooMany = await rejection(b.client.admitBatch({ settlements: [], finishing, items: [admitRequest({ apiKeyId: 204, accountId: 7 })] }));
      expect(tooMany.code).toBe(ErrorCode.InvalidArgument);
      expect(tooMany.message).toMatch(/finishing/);
      expect(await b.sql('SELECT 1 FROM key_usage WHERE api_key_id = 204')).toHaveLength(0);
    });
  });
});
