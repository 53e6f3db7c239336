import { ErrorCode, TaskStatus, silentLogger, taskStatusSubject, type TaskStatusEvent } from '@tollgate/kit';
import { createBillingDb } from '../../src/db';
import { AdmissionRepo } from '../../src/repo/admission-repo';
import { RateRepo } from '../../src/repo/rate-repo';
import { expireAdmissions } from '../../src/usecases/expire-admissions';
import { admitRequest, eventually, rejection, startBilling, taskNo, type BillingHarness } from './harness';

const ADMIN = { accountId: 1, isAdmin: true, apiKeyId: 0 };

describe('Settle: charge, refund, idempotency, events', () => {
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

  it('settles from task status events: 已完成 charges, 已报错 and 已取消 refund, 执行中 does nothing', async () => {
    if (!b) return;
    const tasks = { done: taskNo('ev'), failed: taskNo('ev'), cancelled: taskNo('ev'), running: taskNo('ev') };
    for (const t of Object.values(tasks)) await b.client.admit(admitRequest({ apiKeyId: 205, accountId: 3, taskNumber: t }));
    const publish = (task_number: string, status: TaskStatusEvent['status']) =>
      b!.bus.publish<TaskStatusEvent>(taskStatusSubject(task_number), { task_number, status, kind: 'agent', app_id: 'demo-app', account_id: 3, api_key_id: 205, at: new Date().toISOString() });
    await publish(tasks.running, TaskStatus.Running);
    await publish(tasks.done, TaskStatus.Completed);
    await publish(tasks.failed, TaskStatus.Failed);
    await publish(tasks.cancelled, TaskStatus.Cancelled);
    await publish('unknown-task', TaskStatus.Completed);
    const states = await eventually(async () => {
      const rows = await b!.sql<{ task_number: string; state: string }>('SELECT task_number, state FROM admissions WHERE api_key_id = 205');
      const by = Object.fromEntries(rows.map((r) => [r.task_number, r.state]));
      return by[tasks.done] !== 'open' && by[tasks.failed] !== 'open' && by[tasks.cancelled] !== 'open' ? by : undefined;
    });
    expect(states).toEqual({ [tasks.done]: 'charged', [tasks.failed]: 'refunded', [tasks.cancelled]: 'refunded', [tasks.running]: 'open' });
    // the event and a direct settlement agree: the direct call after the event changes nothing
    await expect(b.client.settle({ taskNumber: tasks.done, outcome: 'charge' })).resolves.toMatchObject({ alreadySettled: true });
    await publish(tasks.done, TaskStatus.Completed);
    expect(await usage(205)).toEqual({ used_quota: '1.000000', reserved: '1.000000', in_flight: 1 });
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
  try {
    return await expireAdmissions({ admissions: new AdmissionRepo(db), rates: new RateRepo(db), log: silentLogger() }, 3600);
  } finally {
    await db.$disconnect();
  }
}
