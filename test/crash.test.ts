import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SERVICE_NAMES } from '@tollgate/kit';
import { findFreePort } from '@tollgate/kit/src/db/free-port';
import { natsUrlForTests, warnNatsSkipped } from '@tollgate/kit/src/testing/nats';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { fetchTrusting } from './support/https';
import { ProcessGroup, poll } from './support/processes';

// Distributed mode under a crash: the tasks service (then the billing service) is killed with
// SIGKILL while 200 async tasks run, and started again. Every task reaches a final state, none is
// lost, the key's used_quota equals the completed tasks, and the ledger holds no duplicate row.
const ADMIN_TOKEN = 'crash-admin-token-0123456789abcdef';
const TASKS = 200;
const FINAL = ['已完成', '已报错', '已取消'];

describe('distributed mode survives kill -9 of a service', () => {
  const group = new ProcessGroup();
  const databases: Record<string, string> = {};
  let gateway = '';
  let dataDir = '';
  let ready = false;
  let token = '';

  async function sql<T extends pg.QueryResultRow>(service: string, text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: databases[service] });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    const natsUrl = await natsUrlForTests();
    if (!natsUrl) return warnNatsSkipped('crash tests');
    const prefix = `crash${Date.now().toString(36)}`;
    const addresses: Record<string, string> = {};
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-crash-'));
    chmodSync(dataDir, 0o755);
    const perService: Record<string, Record<string, string>> = {
      tasks: { TASKS_WORKERS: '8', TASKS_LEASE_MS: '2000', TASKS_POLL_MS: '200', TOLLGATE_SECRET_KEY: randomBytes(32).toString('base64'), TASKS_SEED_DEMO_APPS: 'true' },
      billing: { BILLING_RPM_PRO: '100000', BILLING_CONCURRENCY_PRO: '1000' },
    };
    const ports: Record<string, number> = {};
    for (const name of SERVICE_NAMES) {
      ports[name] = await findFreePort();
      addresses[`${name.toUpperCase()}_GRPC_ADDR`] = `127.0.0.1:${ports[name]}`;
    }
    for (const name of SERVICE_NAMES) {
      const url = await createTestDatabase(`crash_${name}`);
      if (!url) return;
      databases[name] = url;
      // each service finds the ones it calls (tasks → billing and keys, search → docs) by their addresses
      group.start(name, { ...addresses, DATABASE_URL: url, GRPC_PORT: String(ports[name]), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_DATA_DIR: dataDir, ...perService[name] });
    }
    const [port, httpsPort] = [await findFreePort(), await findFreePort()];
    group.start('gateway', { ...addresses, PORT: String(port), HTTPS_PORT: String(httpsPort), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_DATA_DIR: dataDir });
    gateway = `http://127.0.0.1:${port}`;
    ready = await poll(async () => (await fetch(`${gateway}/readyz`)).status === 200, 90_000, 250);
    if (!ready) return void console.error(group.tail());
    const httpsFetch = fetchTrusting(readFileSync(join(dataDir, 'tls', 'gateway-cert.pem'), 'utf8'));
    const user = await httpsFetch(`https://127.0.0.1:${httpsPort}/api/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Crash', email: `crash-${Date.now()}@example.com`, level: 'pro' }),
    });
    token = ((await user.json()) as { data: { token: string } }).data.token;
  }, 120_000);

  afterAll(async () => {
    await group.killAll();
    for (const url of Object.values(databases)) await dropTestDatabase(url);
    await releaseTestPostgres();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, ...fields }).toString() });

  async function newKey(name: string): Promise<{ id: number; key: string }> {
    const created = (await (await fetch(`${gateway}/apikeys/create`, form({ name, quota: '1000' }))).json()) as { data: { id: number; key: string } };
    return created.data;
  }

  async function usedQuota(keyId: number): Promise<number | undefined> {
    const listed = (await (await fetch(`${gateway}/apikeys/list`, form({ page_size: '100' }))).json()) as { data: { items: Array<{ id: number; used_quota: number }> } };
    return listed.data.items.find((k) => k.id === keyId)?.used_quota;
  }

  /** Submits TASKS async tasks that each take a moment (20 at a time); returns their numbers. */
  async function submitAll(key: string): Promise<string[]> {
    const numbers: string[] = [];
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'survive the crash' }], call_params: { echo_delay_ms: 150 } });
    for (let i = 0; i < TASKS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const idempotencyKey = `${key.slice(-8)}-${i + j}`;
          // As a client does: a 503 (a database out of connections on a busy machine) is retried, with
          // the same Idempotency-Key so that a retry can never make a second task.
          let res: Response;
          for (let attempt = 1; ; attempt += 1) {
            res = await fetch(`${gateway}/v1/agent/demo-agent/async`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey }, body });
            if (res.status !== 503 || attempt === 5) break;
            await new Promise((r) => setTimeout(r, 300 * attempt));
          }
          const json = (await res.json()) as { task_number?: string };
          if (res.status !== 200 || !json.task_number) throw new Error(`submission failed: ${res.status} ${JSON.stringify(json)}\n${group.tail(6_000)}`);
          return json.task_number;
        }),
      );
      numbers.push(...batch);
    }
    return numbers;
  }

  async function statuses(key: string, numbers: string[]): Promise<{ found: Map<string, string>; notFound: string[] }> {
    const found = new Map<string, string>();
    const notFound: string[] = [];
    for (let i = 0; i < numbers.length; i += 100) {
      const res = await fetch(`${gateway}/v1/task-query/batch`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ task_numbers: numbers.slice(i, i + 100) }) });
      if (res.status !== 200) throw new Error(`batch query answered ${res.status}`);
      const out = (await res.json()) as { items: Array<{ task_number: string; status: string }>; not_found: string[] };
      for (const item of out.items) found.set(item.task_number, item.status);
      notFound.push(...out.not_found);
    }
    return { found, notFound };
  }

  async function runningCount(numbers: string[]): Promise<number> {
    const rows = await sql<{ n: string }>('tasks', "SELECT count(*) AS n FROM tasks WHERE task_number = ANY($1) AND status = '执行中'", [numbers]);
    return Number(rows[0].n);
  }

  async function crashAndRecover(victim: 'tasks' | 'billing'): Promise<void> {
    const key = await newKey(`crash-${victim}`);
    const numbers = await submitAll(key.key);
    expect(new Set(numbers).size).toBe(TASKS);
    // Kill while tasks are running (some done, some under way, most still waiting).
    expect(await poll(async () => (await runningCount(numbers)) > 0, 60_000, 50)).toBe(true);
    await group.kill(victim);
    await new Promise((r) => setTimeout(r, 500));
    group.restart(victim);

    const allFinal = await poll(
      async () => {
        const { found } = await statuses(key.key, numbers);
        return found.size === TASKS && [...found.values()].every((s) => FINAL.includes(s));
      },
      150_000,
      500,
    );
    if (!allFinal) console.error(group.tail());
    expect(allFinal).toBe(true);
    const { found, notFound } = await statuses(key.key, numbers);
    expect(notFound).toEqual([]);
    const completed = [...found.values()].filter((s) => s === '已完成').length;
    expect(completed).toBe(TASKS);

    // Settlement reaches billing (through the bus) for every completed task, once.
    const settled = await poll(async () => (await usedQuota(key.id)) === completed, 60_000, 500);
    expect({ used: await usedQuota(key.id), completed, settled }).toEqual({ used: completed, completed, settled: true });
    const duplicates = await sql('billing', 'SELECT task_number, type, count(*) FROM ledger_entries WHERE task_number = ANY($1) GROUP BY task_number, type HAVING count(*) > 1', [numbers]);
    expect(duplicates).toEqual([]);
    const charges = await sql<{ n: string }>('billing', "SELECT count(*) AS n FROM ledger_entries WHERE task_number = ANY($1) AND type = 'charge'", [numbers]);
    expect(Number(charges[0].n)).toBe(completed);
  }

  it('loses no task when the tasks service is killed and started again', async () => {
    if (!ready) return;
    await crashAndRecover('tasks');
  }, 300_000);

  it('loses no charge when the billing service is killed and started again', async () => {
    if (!ready) return;
    await crashAndRecover('billing');
  }, 300_000);
});
