import { BillingLink, createGrpcClient } from '@tollgate/kit';
import { BillingClient } from '@tollgate/protos/billing';
import { admitRequest, startBilling, taskNo, type BillingHarness } from './harness';

// The kit's BillingLink against the real billing service: a settlement that finds billing away
// (a restart) is sent again until billing is back, instead of waiting for the admission's lease.
describe('BillingLink', () => {
  let b: BillingHarness | null;
  beforeAll(async () => {
    b = await startBilling();
  });
  afterAll(async () => {
    await b?.stop();
  });

  it('sends a settlement again while billing restarts, and it lands once', async () => {
    if (!b) return;
    const address = b.handle.address;
    const client = createGrpcClient(BillingClient, address);
    const link = new BillingLink(client, { settleLingerMs: 0 });
    try {
      const taskNumber = taskNo('restart');
      await link.admit(admitRequest({ apiKeyId: 301, taskNumber }));
      const restart = b.restart(600);
      await new Promise((r) => setTimeout(r, 100));
      const settled = link.settle({ taskNumber, outcome: 'charge' });
      await restart;
      await expect(settled).resolves.toMatchObject({ found: true, state: 'charged', alreadySettled: false });
      const rows = await b.sql<{ type: string }>("SELECT type FROM ledger_entries WHERE task_number = $1 AND type = 'charge'", [taskNumber]);
      expect(rows).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('sends a settlement asked for `now` without waiting for its linger or a ride', async () => {
    if (!b) return;
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 600_000 });
    try {
      const taskNumber = taskNo('now');
      await link.admit(admitRequest({ apiKeyId: 302, taskNumber }));
      await expect(link.settle({ taskNumber, outcome: 'refund' }, { now: true })).resolves.toMatchObject({ found: true, state: 'refunded' });
      const [admission] = await b.sql<{ state: string }>('SELECT state FROM admissions WHERE task_number = $1', [taskNumber]);
      expect(admission.state).toBe('refunded');
    } finally {
      client.close();
    }
  });

  it('decides an admission before the settlements riding with it, with their slots free, and applies each settlement once after it', async () => {
    if (!b) return;
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 600_000 });
    try {
      const key = { apiKeyId: 303, concurrencyLimit: 1, rpmLimit: 100_000 };
      const numbers = Array.from({ length: 20 }, (_, i) => taskNo(`ride${i}`));
      const settled = [];
      for (const taskNumber of numbers) {
        await expect(link.admit(admitRequest({ ...key, taskNumber }))).resolves.toMatchObject({ reserved: '1' });
        settled.push(link.settle({ taskNumber, outcome: 'charge' }));
      }
      await link.flush();
      expect((await Promise.all(settled)).map((r) => [r.state, r.alreadySettled])).toEqual(numbers.map(() => ['charged', false]));
      const rows = await b.sql<{ task_number: string; admitted_at: Date; settled_at: Date }>('SELECT task_number, admitted_at, settled_at FROM admissions WHERE task_number = ANY($1)', [numbers]);
      const at = new Map(rows.map((r) => [r.task_number, r]));
      // Each admission committed before the settlement of the execution before it started.
      for (let i = 1; i < numbers.length; i++) expect(at.get(numbers[i])!.admitted_at.getTime()).toBeLessThan(at.get(numbers[i - 1])!.settled_at.getTime());
      const [usage] = await b.sql<{ used: string; reserved: string; in_flight: number }>('SELECT used_quota::text AS used, reserved::text, in_flight FROM key_usage WHERE api_key_id = 303');
      expect({ used: Number(usage.used), reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ used: 20, reserved: 0, inFlight: 0 });
    } finally {
      client.close();
    }
  });

  it('decides again, after the settlements riding with it, an admission refused for quota', async () => {
    if (!b) return;
    await b.client.setPrice({ actor: { accountId: 1, isAdmin: true, apiKeyId: 0 }, price: { kind: 'chatbot', basis: 'per_output_token', unitPrice: '0.01', updatedAt: '' } });
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 600_000 });
    try {
      // 100 tokens reserved (1.00) each; the first uses 10 (0.10): 0.10 + 1.00 fits in 1.5, 1.00 + 1.00 does not.
      const call = { apiKeyId: 304, quota: '1.5', concurrencyLimit: 10, rpmLimit: 100_000, kind: 'chatbot', basis: 'per_output_token', estimatedOutputTokens: 100 };
      const first = taskNo('token1');
      await expect(link.admit(admitRequest({ ...call, taskNumber: first }))).resolves.toMatchObject({ reserved: '1' });
      const settled = link.settle({ taskNumber: first, outcome: 'charge', units: { inputTokens: 0, outputTokens: 10, seconds: '' } });
      await expect(link.admit(admitRequest({ ...call, taskNumber: taskNo('token2') }))).resolves.toMatchObject({ reserved: '1', remaining: '0.4' });
      await expect(settled).resolves.toMatchObject({ state: 'charged', charged: '0.1' });
      const [usage] = await b.sql<{ used: string; reserved: string }>('SELECT used_quota::text AS used, reserved::text FROM key_usage WHERE api_key_id = 304');
      expect({ used: Number(usage.used), reserved: Number(usage.reserved) }).toEqual({ used: 0.1, reserved: 1 });
    } finally {
      client.close();
    }
  });

  it('keeps a slot free for each of 16 clients running back to back through one link, and charges every execution once', async () => {
    if (!b) return;
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 10 });
    try {
      const key = { apiKeyId: 305, concurrencyLimit: 16, rpmLimit: 100_000 };
      const refused: string[] = [];
      const settled: Array<Promise<unknown>> = [];
      await Promise.all(
        Array.from({ length: 16 }, async (_, c) => {
          for (let i = 0; i < 30; i++) {
            const taskNumber = taskNo(`loop${c}-${i}`);
            try {
              await link.admit(admitRequest({ ...key, taskNumber }));
            } catch (err) {
              refused.push(String(err));
              continue;
            }
            settled.push(link.settle({ taskNumber, outcome: 'charge' }));
          }
        }),
      );
      await link.flush();
      await Promise.all(settled);
      expect(refused).toEqual([]);
      const [usage] = await b.sql<{ used: string; reserved: string; in_flight: number }>('SELECT used_quota::text AS used, reserved::text, in_flight FROM key_usage WHERE api_key_id = 305');
      expect({ used: Number(usage.used), reserved: Number(usage.reserved), inFlight: usage.in_flight }).toEqual({ used: 480, reserved: 0, inFlight: 0 });
      const [ledger] = await b.sql<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE api_key_id = 305 AND type = 'charge'");
      expect(ledger.n).toBe(480);
    } finally {
      client.close();
    }
  });

  it('applies a settlement riding with a lone admission once, when billing restarts under that call', async () => {
    if (!b) return;
    const client = createGrpcClient(BillingClient, b.handle.address);
    const link = new BillingLink(client, { settleLingerMs: 600_000 });
    try {
      const key = { apiKeyId: 306, concurrencyLimit: 1, rpmLimit: 100_000 };
      const ended = taskNo('away1');
      await link.admit(admitRequest({ ...key, taskNumber: ended }));
      const settled = link.settle({ taskNumber: ended, outcome: 'charge' });
      const restart = b.restart(600);
      await new Promise((r) => setTimeout(r, 100));
      // The admission's call finds billing away: 503 for it; its riding settlement is sent again.
      await expect(link.admit(admitRequest({ ...key, taskNumber: taskNo('away2') }))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await restart;
      await new Promise((r) => setTimeout(r, 500)); // the settlement's first retry is queued again
      // It rides with the key's next execution, whose slot it frees.
      await expect(link.admit(admitRequest({ ...key, taskNumber: taskNo('away3') }))).resolves.toMatchObject({ reserved: '1' });
      await expect(settled).resolves.toMatchObject({ found: true, state: 'charged' });
      const charges = await b.sql<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE task_number = $1 AND type = 'charge'", [ended]);
      expect(charges[0].n).toBe(1);
    } finally {
      client.close();
    }
  });
});
