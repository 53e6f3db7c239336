import { createGrpcClient, silentLogger } from '@tollgate/kit';
import { KeysClient } from '@tollgate/protos/keys';
import { ExecuteRequest, TasksClient } from '@tollgate/protos/tasks';
import { tasksService } from '../../services/tasks/src/service';
import { payerOf } from '../../gateway/src/routes/tasks-execute';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql, newAccount, newApiKey } from './billing-support';
import { eventually } from './docs-support';
import { chat, passthroughEnv, post } from './passthrough-support';
import { openStream, readSse, send } from './tasks-support';

// A sync execution's settlement is not awaited before the answer: it rides along with the tasks
// replica's next admission, or goes alone after TASKS_SETTLE_LINGER_MS. A one-second linger here
// makes sure nothing below passes by timing: only the link's order can free the key's slot.
const LINGER = { TASKS_SETTLE_LINGER_MS: '1000', SETTLE_LINGER_MS: '1000' };

async function admission(t: TestSystem, taskNumber: string): Promise<string | undefined> {
  const [row] = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE task_number = $1', [taskNumber]);
  return row?.state;
}

/** The key's used quota, once it reached `expected`, with what it still reserves and runs. */
async function settledUsage(t: TestSystem, keyId: number, expected: number) {
  const usage = await eventually(async () => {
    const [u] = await billingSql<{ used: string; reserved: string; in_flight: number }>(t, 'SELECT used_quota::text AS used, reserved::text, in_flight FROM key_usage WHERE api_key_id = $1', [keyId]);
    return Number(u.used) === expected ? u : undefined;
  }, `used quota ${expected}`);
  return { used: Number(usage.used), reserved: Number(usage.reserved), inFlight: usage.in_flight };
}


describe('settlements ride along with the next admission (embedded)', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem({ ...LINGER, TASKS_WORKERS: '1' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a key with a concurrency limit of 1 runs one execution after another, JSON and streamed, and each is charged once', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token, { quota: '100', rpm_limit: '1000000', concurrency_limit: '1' });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: key.key, body: { messages: [{ role: 'user', content: `run ${i}` }] } })).status);
    for (let i = 0; i < 3; i++) {
      const sse = await readSse(await openStream(t, '/v1/agent/demo-agent/sync', key.key, { messages: [{ role: 'user', content: `stream ${i}` }], stream: true }));
      statuses.push(sse.done ? sse.status : -1);
    }
    expect(statuses).toEqual(Array(11).fill(200));
    expect(await settledUsage(t, key.id, 11)).toEqual({ used: 11, reserved: 0, inFlight: 0 });
  });

  it("a worker does not wait for its settlements' ride: tasks that end together are settled in one call", async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token, { quota: '100', rpm_limit: '1000000', concurrency_limit: '100' });
    const submitted = await Promise.all(Array.from({ length: 4 }, (_, i) => send(t!, 'POST', '/v1/agent/demo-agent/async', { key: key.key, body: { messages: [{ role: 'user', content: `queued ${i}` }] } })));
    expect(submitted.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const numbers = submitted.map((r) => r.body.task_number as string);
    // Each settlement waits up to a second for an admission to ride along with; a worker that awaited
    // it would settle each task in a call of its own, a second apart.
    const settled = await eventually(async () => {
      const rows = await billingSql<{ at: string }>(t!, "SELECT settled_at::text AS at FROM admissions WHERE task_number = ANY($1) AND state = 'charged'", [numbers]);
      return rows.length === 4 ? rows : undefined;
    }, 'the four tasks charged');
    expect(new Set(settled.map((r) => r.at)).size).toBeLessThan(4);
  });

  it('a replica that stops sends the settlements still waiting for a ride', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token, { quota: '100', rpm_limit: '1000000', concurrency_limit: '10' });
    const keys = createGrpcClient(KeysClient, t.system.services.keys.address);
    const principal = await keys.authenticateKey({ key: key.key, kind: 'agent' });
    keys.close();
    const config = tasksService.loadConfig({
      DATABASE_URL: t.system.databaseUrls.tasks,
      BILLING_GRPC_ADDR: t.system.services.billing.address,
      GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
      TASKS_WORKERS: '0',
      TASKS_SETTLE_LINGER_MS: '1000',
    });
    const replica = await tasksService.start(config, { bus: t.system.bus, log: silentLogger() });
    const client = createGrpcClient(TasksClient, replica.address, { timeoutMs: 10_000 });
    try {
      const done = await client.executeSync(ExecuteRequest.fromPartial({
        actor: { accountId: principal.account!.id, isAdmin: false, apiKeyId: principal.key!.id },
        kind: 'agent',
        appId: 'demo-agent',
        messages: [{ role: 'user', content: 'settled on stop' }],
        mode: 'sync',
        payer: payerOf({ key: principal.key!, account: principal.account! }),
      }));
      const taskNumber = done.taskNumber;
      expect(await admission(t, taskNumber)).toBe('open');
      client.close();
      await replica.stop();
      expect(await admission(t, taskNumber)).toBe('charged');
    } finally {
      client.close();
    }
  });
});

describe('a passthrough settlement rides along with the gateway\'s next admission', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    t = await startTestSystem({ ...(await passthroughEnv(fake)), ...LINGER });
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('a provider key with a concurrency limit of 1 is proxied one request after another, each charged once', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token, { channel: 'provider:fake', quota: '100', rpm_limit: '1000000', concurrency_limit: '1' });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await post(t, '/v1/chat/completions', key.key, chat(`proxied ${i}`))).status);
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await settledUsage(t, key.id, 8)).toEqual({ used: 8, reserved: 0, inFlight: 0 });
  });
});
