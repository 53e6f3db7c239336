import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { authenticateApiKey, requireApiKey, principalOf } from '../../src/auth/api-key';
import { errorHandler } from '../../src/http/errors';
import { admitExecution, settleExecution } from '../../src/billing/admission';
import { newTaskNumber } from '../../src/billing/task-number';
import type { GatewayDeps } from '../../src/deps';
import { startTestSystem, type TestSystem } from '../../../test/support/system';
import { billingSql, newAccount, newApiKey, startReplica, type Replica } from '../../../test/e2e/billing-support';

interface Probe {
  base: string;
  close(): Promise<void>;
}

/**
 * Test-only HTTP front: the real requireApiKey, the real admission helpers and the gateway's own
 * error handler, as the task routes use them. `POST /run/:kind` admits; `POST /settle/:task/:outcome` settles.
 */
async function startProbe(deps: GatewayDeps): Promise<Probe> {
  const app = express();
  app.post('/run/:kind', requireApiKey(deps, (req) => String(req.params.kind)), async (req, res) => {
    const taskNumber = newTaskNumber();
    const admitted = await admitExecution(deps, principalOf(res), { kind: String(req.params.kind), appId: 'probe-app', taskNumber });
    res.json({ task_number: taskNumber, ...admitted });
  });
  app.post('/settle/:task/:outcome', async (req, res) => {
    res.json(await settleExecution(deps, String(req.params.task), req.params.outcome as 'charge' | 'refund'));
  });
  app.use(errorHandler);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const run = async (p: Probe, key: string, kind = 'agent') => {
  const res = await fetch(`${p.base}/run/${kind}`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
};
const settle = async (p: Probe, task: string, outcome: 'charge' | 'refund') => (await fetch(`${p.base}/settle/${task}/${outcome}`, { method: 'POST' })).json() as Promise<any>;

// Admission through the gateway's helpers and error mapping, against the whole running system.
describe('execution admission through the gateway', () => {
  let t: TestSystem | null;
  let replica: Replica;
  let probes: Probe[] = [];
  beforeAll(async () => {
    t = await startTestSystem({
      BILLING_RPM_PRO: '4',
      BILLING_CONCURRENCY_PRO: '2',
      BILLING_RPM_ENTERPRISE: '100000',
      BILLING_CONCURRENCY_ENTERPRISE: '100000',
    });
    if (!t) return;
    replica = await startReplica(t);
    probes = [await startProbe(t.system.gateway.deps), await startProbe(replica.gateway.deps)];
  });
  afterAll(async () => {
    for (const p of probes) await p.close();
    await replica?.gateway.stop();
    await t?.stop();
  });

  it('admits exactly 100 of 1,000 concurrent executions against a quota of 100, across two gateway replicas', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'enterprise');
    const key = await newApiKey(t, token, { quota: '100' });
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => run(probes[i % 2], key.key)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(900);
    for (const r of refused) expect(r.body.detail).toMatch(/insufficient quota/);
    const [row] = await billingSql<{ reserved: string }>(t, 'SELECT reserved::text FROM key_usage WHERE api_key_id = $1', [key.id]);
    expect(Number(row.reserved)).toBe(100);
  });

  it('answers 429 naming the concurrency limit, with Retry-After, and admits again after a settlement', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token);
    const a = await run(probes[0], key.key);
    const b = await run(probes[1], key.key);
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await run(probes[0], key.key);
    expect(c.status).toBe(429);
    expect(c.body).toEqual({ detail: expect.stringMatching(/concurrency limit exceeded: this key allows 2 executions at once/) });
    expect(c.retryAfter).toBe('1');
    await expect(settle(probes[1], a.body.task_number, 'charge')).resolves.toMatchObject({ charged: '1', alreadySettled: false });
    await expect(settle(probes[0], a.body.task_number, 'charge')).resolves.toMatchObject({ alreadySettled: true });
    expect((await run(probes[1], key.key)).status).toBe(200);
  });

  it('answers 429 naming the per-minute limit, with Retry-After, counted across both replicas', async () => {
    if (!t) return;
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const { token } = await newAccount(t, 'pro');
    const key = await newApiKey(t, token);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof run>> | undefined;
    for (let i = 0; i < 6; i++) {
      const r = await run(probes[i % 2], key.key);
      statuses.push(r.status);
      if (r.status === 200) await settle(probes[0], r.body.task_number, 'refund');
      else refused ??= r;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(refused!.body.detail).toMatch(/rate limit exceeded: this key allows 4 requests per minute/);
    expect(Number(refused!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused!.retryAfter)).toBeLessThanOrEqual(60);
  });

  it('refunds on failure: only charges count in the used_quota of the keys API (a reservation is not used quota)', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'enterprise');
    const key = await newApiKey(t, token, { quota: '2' });
    const first = await run(probes[0], key.key);
    const second = await run(probes[1], key.key);
    expect((await run(probes[0], key.key)).body.detail).toMatch(/insufficient quota/);
    await settle(probes[0], first.body.task_number, 'charge');
    await settle(probes[0], second.body.task_number, 'refund');
    expect((await run(probes[0], key.key)).status).toBe(200);
    const list = await fetch(`${t.http}/apikeys/list`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
    const listed = (await list.json()) as { data: { items: Array<{ id: number; used_quota: number; remaining_quota: number }> } };
    expect(listed.data.items.find((k) => k.id === key.id)).toMatchObject({ used_quota: 1, remaining_quota: 1 });
  });

  it('rejects a task number admitted twice (409), never reserving twice', async () => {
    if (!t) return;
    const { token } = await newAccount(t, 'enterprise');
    const key = await newApiKey(t, token);
    const deps = t.system.gateway.deps;
    const principal = await authenticateApiKey(deps, key.key, 'agent');
    const taskNumber = newTaskNumber();
    await admitExecution(deps, principal, { kind: 'agent', appId: 'x', taskNumber });
    await expect(admitExecution(deps, principal, { kind: 'agent', appId: 'x', taskNumber })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });
});
