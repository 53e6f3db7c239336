import pg from 'pg';
import { startTestSystem, type TestSystem } from '../support/system';
import { answersOf, burst, type BurstMode } from '../support/burst';
import { billingSql, newAccount, newApiKey } from './billing-support';
import { openStream, send, waitForStatus } from './tasks-support';

const ENV = { TASKS_POLL_MS: '200', TASKS_LEASE_MS: '2000', TASKS_WORKERS: '8', TASKS_ADMISSION_LEASE_SECONDS: '3', TASKS_RECONCILE_INTERVAL_MS: '1000' };

/** The key's usage row and its admissions, read in one statement (one snapshot). */
async function usage(t: TestSystem, keyId: number) {
  const [row] = await billingSql<{ used_quota: string; reserved: string; in_flight: number; open: number; charged: number; refunded: number }>(
    t,
    `SELECT u.used_quota::text, u.reserved::text, u.in_flight,
            count(*) FILTER (WHERE a.state = 'open')::int AS open, count(*) FILTER (WHERE a.state = 'charged')::int AS charged,
            count(*) FILTER (WHERE a.state = 'refunded')::int AS refunded
     FROM key_usage u LEFT JOIN admissions a ON a.api_key_id = u.api_key_id WHERE u.api_key_id = $1
     GROUP BY u.used_quota, u.reserved, u.in_flight`,
    [keyId],
  );
  return { used: Number(row.used_quota), reserved: Number(row.reserved), inFlight: row.in_flight, open: row.open, charged: row.charged, refunded: row.refunded };
}

async function tasksOf(t: TestSystem, keyId: number): Promise<Array<{ task_number: string; status: string }>> {
  const client = new pg.Client({ connectionString: t.system.databaseUrls.tasks });
  await client.connect();
  try {
    return (await client.query('SELECT task_number, status FROM tasks WHERE api_key_id = $1', [keyId])).rows;
  } finally {
    await client.end();
  }
}

async function until<T>(probe: () => Promise<T | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== false) return v;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Back-pressure and money on the execution path: a burst far beyond a key's quota is answered
// with 200, 429 or 503 (each with Retry-After), never 500, and exactly the completed executions are charged.
describe('execution bursts, back-pressure and exact money (embedded)', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem(ENV);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const keyWithQuota = async (quota: string) => {
    const { token } = await newAccount(t!, 'pro');
    return newApiKey(t!, token, { quota, rpm_limit: '1000000', concurrency_limit: '5000' });
  };

  it.each<BurstMode>(['sync', 'async', 'stream'])('1,000 concurrent %s calls on a key with quota 100: exactly 100 charged, no 500', async (mode) => {
    if (!t) return;
    const key = await keyWithQuota('100');
    const outcomes = await burst(t.http, key.key, mode, 1000);
    const { refused, other } = answersOf(outcomes);
    expect(other.map((a) => `${a.status} ${a.body.slice(0, 120)}`)).toEqual([]);
    for (const a of refused) {
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(a.body)).toEqual({ detail: expect.any(String), ...(a.status === 503 && { request_id: expect.any(String) }) });
    }
    const completed = outcomes.filter((o) => o.completed);
    expect(completed).toHaveLength(100);
    // Every other call ends refused: 429 (the quota) or, when the machine stayed saturated through
    // all of the client's retries, 503 with Retry-After. Never a 500, never charged.
    expect(outcomes.filter((o) => !o.completed).map((o) => o.final.status).filter((s) => s !== 429 && s !== 503)).toEqual([]);
    if (mode === 'async') for (const o of completed) await waitForStatus(t, key.key, o.taskNumber!, ['已完成']);
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    });
    // Under overload an admission can be written while tasks stops waiting for it (503, retried by
    // the client): no task exists for it, and the reconciliation refunds it. Never charged.
    expect(u).toEqual({ used: 100, reserved: 0, inFlight: 0, open: 0, charged: 100, refunded: expect.any(Number) });
    const rows = await tasksOf(t, key.id);
    expect(rows.filter((r) => r.status === '已完成')).toHaveLength(100);
    // the key's used_quota as the key API shows it
    const listed = await send(t, 'GET', '/v1/task-query/list', { key: key.key });
    expect(listed.status).not.toBe(500);
  }, 180_000);

  it('a 404 or 422 never reserves quota, and a replay is neither admitted nor charged', async () => {
    if (!t) return;
    const key = await keyWithQuota('3');
    const unknown = await send(t, 'POST', '/v1/agent/no-such-app/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'x' }] } });
    expect(unknown.status).toBe(404);
    const wrongKind = await send(t, 'POST', '/v1/chatbot/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'x' }] } });
    expect(wrongKind.status).toBe(404);
    const bad = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'x' }], temperature: 9 } });
    expect(bad.status).toBe(422);
    const headers = { 'Idempotency-Key': `replay-${Date.now()}` };
    const first = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'once' }] }, headers });
    const again = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'once' }] }, headers });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.task_number).toBe(first.body.task_number);
    const [adm] = await billingSql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM admissions WHERE api_key_id = $1', [key.id]);
    expect(adm.n).toBe(1);
    // The settlement follows the first answer within TASKS_SETTLE_LINGER_MS (the replay admits nothing for it to ride along with).
    const settled = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    }, 10_000);
    expect(settled).toMatchObject({ used: 1, reserved: 0, inFlight: 0, charged: 1, refunded: 0 });
  });

  it('concurrent streamed and JSON calls with one Idempotency-Key: one runs and is charged, the others are refused or replay it', async () => {
    if (!t) return;
    const key = await keyWithQuota('100');
    const idem = `stream-race-${Date.now()}`;
    const headers = { 'Idempotency-Key': idem };
    const slow = { echo_delay_ms: 20 };
    // Different bodies (the helper's probe: 15 streamed answers, 1 charged) and the same body.
    const streams = Array.from({ length: 8 }, (_, i) =>
      openStream(t!, '/v1/agent/demo-agent/sync', key.key, { messages: [{ role: 'user', content: `question ${i}` }], stream: true, call_params: slow }, undefined, headers).then(async (res) => ({
        status: res.status,
        text: await res.text(),
        taskNumber: res.headers.get('x-task-number'),
      })),
    );
    const same = Array.from({ length: 4 }, () =>
      send(t!, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'question 0' }], call_params: slow }, headers }),
    );
    const answers = await Promise.all(streams);
    const jsonAnswers = await Promise.all(same);
    // Whichever call won, exactly one execution ran: every 200 (stream or JSON) is that task (a
    // replay for the others), every other answer a 409 before any content.
    const ok = [...answers.filter((a) => a.status === 200).map((a) => a.taskNumber), ...jsonAnswers.filter((r) => r.status === 200).map((r) => r.body.task_number)];
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok).size).toBe(1);
    for (const a of answers) {
      if (a.status === 200) expect(a.text).toContain('[DONE]');
      else expect([a.status, JSON.parse(a.text)]).toEqual([409, { detail: expect.any(String) }]);
    }
    for (const r of jsonAnswers) expect([200, 409]).toContain(r.status);
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    }, 20_000);
    expect(u).toMatchObject({ used: 1, reserved: 0, inFlight: 0, charged: 1 });
    const rows = await tasksOf(t, key.id);
    expect(rows).toEqual([{ task_number: ok[0], status: '已完成' }]);
  }, 60_000);

  it('a keyed streamed run is 执行中 while it runs, its owner cannot cancel it through the API, and it is charged', async () => {
    if (!t) return;
    const key = await keyWithQuota('10');
    const res = await openStream(t, '/v1/agent/demo-agent/sync', key.key, { messages: [{ role: 'user', content: 'a slow answer of several words' }], stream: true, call_params: { echo_delay_ms: 150 } }, undefined, { 'Idempotency-Key': `cancel-${Date.now()}` });
    expect(res.status).toBe(200);
    const taskNumber = res.headers.get('x-task-number')!;
    const seen = await send(t, 'GET', `/v1/task-query/${taskNumber}`, { key: key.key });
    expect(seen.status).toBe(200);
    expect(JSON.stringify(seen.body)).toContain('执行中');
    const cancel = await send(t, 'POST', '/v1/task-status/update', { key: key.key, body: { task_number: taskNumber, status: '已取消' } });
    expect(cancel.status).toBe(409);
    expect(await res.text()).toContain('[DONE]');
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    }, 20_000);
    expect(u).toMatchObject({ used: 1, charged: 1 });
    expect(await tasksOf(t, key.id)).toEqual([{ task_number: taskNumber, status: '已完成' }]);
  }, 60_000);

  it('a submission slower than the gateway deadline: every task that completes is charged exactly once, none without a task', async () => {
    if (!t) return;
    const key = await keyWithQuota('50');
    const { startReplica } = await import('./billing-support');
    // a second gateway in front of the same services, with a short gRPC deadline
    const replica = await startReplica(t, { GRPC_DEADLINE_MS: '1500' });
    const locker = new pg.Client({ connectionString: t.system.databaseUrls.tasks });
    await locker.connect();
    let statuses: number[] = [];
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tasks IN EXCLUSIVE MODE');
      const calls = Array.from({ length: 5 }, () =>
        fetch(`${replica.gateway.httpUrl}/v1/agent/demo-agent/async`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'slow submission' }] }),
        }).then((r) => r.status),
      );
      statuses = await Promise.all(calls);
      // The first insert is sent and waits on the lock past the deadline (504: its outcome is
      // unknown to the gateway). The others queue behind it in the tasks service and are dropped
      // unwritten just before the deadline (503 with Retry-After): no task, nothing to charge.
      expect(statuses.filter((s) => s !== 503 && s !== 504)).toEqual([]);
      expect(statuses).toContain(504);
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await locker.query('COMMIT');
      await locker.end();
      await replica.gateway.stop();
    }
    const unknown = statuses.filter((s) => s === 504).length;
    const done = await until(async () => {
      const rows = await tasksOf(t!, key.id);
      return rows.length === unknown && rows.every((r) => r.status === '已完成') ? rows : false;
    });
    expect(done).toHaveLength(unknown);
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    });
    expect(u).toEqual({ used: unknown, reserved: 0, inFlight: 0, open: 0, charged: unknown, refunded: 5 - unknown });
    const charges = await billingSql<{ task_number: string }>(t, "SELECT task_number FROM ledger_entries WHERE api_key_id = $1 AND type = 'charge'", [key.id]);
    expect(charges.map((c) => c.task_number).sort()).toEqual(done.map((d) => d.task_number).sort());
  }, 120_000);

  it('billing too slow to admit a submission before the gateway\'s deadline: 503 with Retry-After, not 504, and nothing charged', async () => {
    if (!t) return;
    const key = await keyWithQuota('50');
    const warm = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'warm' }] } });
    expect(warm.status).toBe(200);
    const { startReplica } = await import('./billing-support');
    const replica = await startReplica(t, { GRPC_DEADLINE_MS: '1500' });
    // every admission of this key queues behind the lock on its usage row
    const locker = new pg.Client({ connectionString: t.system.databaseUrls.billing });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM key_usage WHERE api_key_id = $1 FOR UPDATE', [key.id]);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          fetch(`${replica.gateway.httpUrl}/v1/agent/demo-agent/async`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ messages: [{ role: 'user', content: 'billing is slow' }] }),
          }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as { detail: string } })),
        ),
      );
      for (const a of answers) {
        expect(a).toMatchObject({ status: 503, body: { detail: expect.stringContaining('billing is at capacity') } });
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await locker.query('COMMIT');
      await locker.end();
      await replica.gateway.stop();
    }
    // The admissions written once the lock went have no task: their leases run out and they are refunded.
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    });
    expect(u).toMatchObject({ used: 1, reserved: 0, inFlight: 0, open: 0, charged: 1 });
    expect((await tasksOf(t, key.id)).map((r) => r.status)).toEqual(['已完成']);
  }, 120_000);

  it('an admission whose task never came to exist is refunded once its lease runs out', async () => {
    if (!t) return;
    const key = await keyWithQuota('10');
    // a reservation made for an execution whose replica died before writing its task
    const billing = t.system.services.billing.address;
    const { createGrpcClient } = await import('@tollgate/kit');
    const { BillingClient } = await import('@tollgate/protos/billing');
    const client = createGrpcClient(BillingClient, billing);
    try {
      const keyRow = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: 'warm' }] } });
      expect(keyRow.status).toBe(200);
      // Its settlement first (it follows the answer within TASKS_SETTLE_LINGER_MS), so that only the ghost stays open.
      await until(async () => ((await usage(t!, key.id)).open === 0 ? true : false), 10_000);
      const [acc] = await billingSql<{ account_id: number }>(t, 'SELECT account_id FROM key_usage WHERE api_key_id = $1', [key.id]);
      await client.admit({
        apiKeyId: key.id, accountId: acc.account_id, level: 'pro', quota: '10', rpmLimit: 0, concurrencyLimit: 0, kind: 'agent', appId: 'demo-agent',
        taskNumber: `Tghost${Date.now()}`, basis: '', estimatedInputTokens: 0, estimatedOutputTokens: 0, estimatedSeconds: 0, leaseSeconds: 1,
      });
      expect(await usage(t, key.id)).toMatchObject({ used: 1, reserved: 1, inFlight: 1, open: 1 });
      const u = await until(async () => {
        const now = await usage(t!, key.id);
        return now.open === 0 ? now : false;
      }, 30_000);
      expect(u).toEqual({ used: 1, reserved: 0, inFlight: 0, open: 0, charged: 1, refunded: 1 });
    } finally {
      client.close();
    }
  }, 60_000);
});

// In-flight bound: beyond TASKS_MAX_IN_FLIGHT executions a replica answers 503 with Retry-After at once.
describe('the in-flight bound of the tasks service (embedded)', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem({ ...ENV, TASKS_MAX_IN_FLIGHT: '10' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 503 with Retry-After beyond it, never 500, and charges exactly the completed executions', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token, { quota: '1000', rpm_limit: '1000000', concurrency_limit: '5000' });
    const slow = JSON.stringify({ messages: [{ role: 'user', content: 'a b c d' }], call_params: { echo_delay_ms: 100 } });
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${t!.http}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' }, body: slow }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: (await r.json()) as { detail?: string },
        })),
      ),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.retryAfter).toBe('1');
      expect(a.body.detail).toMatch(/running 10 executions; try again shortly/);
    }
    const completed = answers.filter((a) => a.status === 200).length;
    const u = await until(async () => {
      const now = await usage(t!, key.id);
      return now.open === 0 ? now : false;
    });
    expect(u).toMatchObject({ used: completed, reserved: 0, inFlight: 0, charged: completed, refunded: 0 });
  }, 120_000);
});
