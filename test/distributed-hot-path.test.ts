import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetchTrusting } from './support/https';
import { answersOf, burst, callOnce, type BurstMode } from './support/burst';
import { DIST_ADMIN_TOKEN, startDistributed, type Distributed } from './support/distributed';

// The execution path in the distributed mode (every service its own process, NATS): bursts far
// beyond a key's quota, and kill -9 of the tasks service in the middle of a burst.
describe('distributed mode: back-pressure and exact money', () => {
  let d: Distributed | null = null;
  let ready = false;

  beforeAll(async () => {
    d = await startDistributed({
      tasks: { TASKS_ADMISSION_LEASE_SECONDS: '3', TASKS_RECONCILE_INTERVAL_MS: '1000', TASKS_LEASE_MS: '2000', TASKS_POLL_MS: '200', TASKS_WORKERS: '8' },
    });
    if (!d) return;
    ready = await d.waitReady(`${d.gateway}/readyz`, 240_000);
    if (!ready) console.error(d.logs());
  }, 300_000);
  afterAll(async () => {
    await d?.stop();
  });

  async function newKey(quota: string): Promise<{ id: number; key: string }> {
    const httpsFetch = fetchTrusting(readFileSync(join(d!.dataDir, 'tls', 'gateway-cert.pem'), 'utf8'));
    const user = await httpsFetch(`${d!.gatewayHttps}/api/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DIST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Burst', email: `burst-${Date.now()}-${Math.random()}@example.com`, level: 'pro' }),
    });
    const token = ((await user.json()) as { data: { token: string } }).data.token;
    const form = new URLSearchParams({ token, name: 'burst', quota, rpm_limit: '1000000', concurrency_limit: '5000' });
    const res = await fetch(`${d!.gateway}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    return ((await res.json()) as { data: { id: number; key: string } }).data;
  }

  /** The key's tasks, then its usage row and admissions in one statement (one snapshot of billing). */
  async function usage(keyId: number) {
    const [tasks] = await d!.sql<{ completed: number; unfinished: number }>(
      'tasks',
      `SELECT count(*) FILTER (WHERE status = '已完成')::int AS completed, count(*) FILTER (WHERE status IN ('等待中', '执行中'))::int AS unfinished FROM tasks WHERE api_key_id = $1`,
      [keyId],
    );
    const [row] = await d!.sql<{ used: string; reserved: string; in_flight: number; open: number; charged: number }>(
      'billing',
      `SELECT u.used_quota::text AS used, u.reserved::text, u.in_flight,
              count(*) FILTER (WHERE a.state = 'open')::int AS open, count(*) FILTER (WHERE a.state = 'charged')::int AS charged
       FROM key_usage u LEFT JOIN admissions a ON a.api_key_id = u.api_key_id WHERE u.api_key_id = $1
       GROUP BY u.used_quota, u.reserved, u.in_flight`,
      [keyId],
    );
    return { used: Number(row?.used ?? 0), reserved: Number(row?.reserved ?? 0), inFlight: row?.in_flight ?? 0, open: row?.open ?? 0, charged: row?.charged ?? 0, completed: tasks.completed, unfinished: tasks.unfinished };
  }

  async function settled(keyId: number, withinMs: number) {
    const until = Date.now() + withinMs;
    for (;;) {
      const u = await usage(keyId);
      if ((u.open === 0 && u.unfinished === 0) || Date.now() > until) return u;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  it('becomes ready with every service in its own process', () => {
    if (!d) return;
    expect(ready).toBe(true);
  });

  it.each<BurstMode>(['sync', 'async', 'stream'])('1,000 concurrent %s calls on a key with quota 100: exactly 100 charged, no 500', async (mode) => {
    if (!ready) return;
    const key = await newKey('100');
    const outcomes = await burst(d!.gateway, key.key, mode, 1000);
    const { refused, other } = answersOf(outcomes);
    expect(other.map((a) => `${a.status} ${a.body.slice(0, 120)}`)).toEqual([]);
    for (const a of refused) expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(outcomes.filter((o) => o.completed)).toHaveLength(100);
    expect(await settled(key.id, 60_000)).toEqual({ used: 100, reserved: 0, inFlight: 0, open: 0, charged: 100, completed: 100, unfinished: 0 });
  }, 240_000);

  it('kill -9 of the tasks service during a burst: within 2 minutes nothing stays reserved and used_quota equals completions', async () => {
    if (!ready) return;
    const key = await newKey('1000');
    let answered = 0;
    const calls = Array.from({ length: 300 }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 3)).then(() =>
        callOnce(d!.gateway, key.key, 'async', 0).then((o) => {
          answered++;
          return o;
        }),
      ),
    );
    while (answered < 60) await new Promise((r) => setTimeout(r, 10));
    await d!.kill('tasks');
    const killedAt = Date.now();
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o.final.status === 500)).toEqual([]);
    d!.restart('tasks');
    const u = await settled(key.id, 120_000 - (Date.now() - killedAt));
    expect(Date.now() - killedAt).toBeLessThan(120_000);
    expect(u.open).toBe(0);
    expect(u.unfinished).toBe(0);
    expect(u.reserved).toBe(0);
    expect(u.inFlight).toBe(0);
    expect(u.used).toBe(u.completed);
    expect(u.charged).toBe(u.completed);
    expect(u.completed).toBeGreaterThanOrEqual(outcomes.filter((o) => o.final.status === 200).length);
    // Once the restarted service is ready again (its tasks may all have finished before the kill,
    // so the money can be settled before it is), the key is usable at once: no phantom concurrency slot.
    expect(await d!.waitReady(`${d!.gateway}/readyz`, 60_000)).toBe(true);
    const after = await fetch(`${d!.gateway}/v1/agent/demo-agent/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'after the crash' }] }),
    });
    const afterBody = after.status === 200 ? '' : await after.text();
    expect({ status: after.status, body: afterBody }).toEqual({ status: 200, body: '' });
  }, 240_000);
});
