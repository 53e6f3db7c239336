import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@tollgate/kit';
import { findFreePort } from '@tollgate/kit/src/db/free-port';
import { natsUrlForTests, warnNatsSkipped } from '@tollgate/kit/src/testing/nats';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { fetchTrusting } from './support/https';
import { ENTRY, ROOT } from './support/processes';

// The distributed mode: every service and the gateway in its own process, configured only by
// environment variables, talking gRPC over TCP and NATS JetStream for events.
const ADMIN_TOKEN = 'distributed-admin-token-0123456789abcdef';
/** Replicas of the tasks service share the key that seals apps' upstream api_keys. */
const SECRET_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

describe('distributed mode', () => {
  const children = new Map<string, ChildProcess>();
  const output = new Map<string, string>();
  const databases: string[] = [];
  let gateway = '';
  let gatewayHttps = '';
  let dataDir = '';
  let ready = false;

  function start(name: keyof typeof ENTRY, env: Record<string, string>): void {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[name]], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    output.set(name, '');
    const keep = (chunk: Buffer) => output.set(name, (output.get(name)! + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.set(name, child);
  }

  async function waitReady(url: string, deadlineMs: number): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    while (Date.now() < until) {
      const ok = await fetch(url).then((r) => r.status === 200, () => false);
      if (ok) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  }

  beforeAll(async () => {
    const natsUrl = await natsUrlForTests();
    if (!natsUrl) return warnNatsSkipped('distributed mode');
    const prefix = `dist${Date.now().toString(36)}`;
    const addresses: Record<string, string> = {};
    const ports: Record<string, number> = {};
    for (const name of SERVICE_NAMES) {
      ports[name] = await findFreePort();
      addresses[`${name.toUpperCase()}_GRPC_ADDR`] = `127.0.0.1:${ports[name]}`;
    }
    for (const name of SERVICE_NAMES) {
      const url = await createTestDatabase(`dist_${name}`);
      if (!url) return;
      databases.push(url);
      // each service finds the ones it calls (tasks → billing, search → docs) by their addresses
      start(name, { ...addresses, DATABASE_URL: url, GRPC_PORT: String(ports[name]), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_DATA_DIR: tmpdir(), TOLLGATE_SECRET_KEY: SECRET_KEY });
    }
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-dist-'));
    chmodSync(dataDir, 0o755);
    const [port, httpsPort] = [await findFreePort(), await findFreePort()];
    start('gateway', { ...addresses, PORT: String(port), HTTPS_PORT: String(httpsPort), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_DATA_DIR: dataDir });
    gateway = `http://127.0.0.1:${port}`;
    gatewayHttps = `https://127.0.0.1:${httpsPort}`;
    ready = await waitReady(`${gateway}/readyz`, 60_000);
    if (!ready) console.error([...output].map(([n, o]) => `--- ${n}\n${o.slice(-3000)}`).join('\n'));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const url of databases) await dropTestDatabase(url);
    await releaseTestPostgres();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('becomes ready with every service in its own process', () => {
    if (children.size === 0) return;
    expect(ready).toBe(true);
  });

  it('runs paid tasks end to end, admitted and settled by the tasks service through billing', async () => {
    if (!ready) return;
    // ready means HTTPS is up too: its certificate is on disk before /readyz answers
    const httpsFetch = fetchTrusting(readFileSync(join(dataDir, 'tls', 'gateway-cert.pem'), 'utf8'));
    const httpsBase = gatewayHttps;
    const user = await httpsFetch(`${httpsBase}/api/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Dee', email: `dee-${Date.now()}@example.com`, level: 'pro' }),
    });
    expect(user.status).toBe(201);
    const token = ((await user.json()) as { data: { token: string } }).data.token;
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, ...fields }).toString() });
    const created = (await (await fetch(`${gateway}/apikeys/create`, form({ name: 'dist', quota: '5' }))).json()) as { data: { key: string } };
    const auth = { authorization: `Bearer ${created.data.key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'across processes' }] });

    const sync = await fetch(`${gateway}/v1/agent/demo-agent/sync`, { method: 'POST', headers: auth, body });
    expect(sync.status).toBe(200);
    expect(((await sync.json()) as { object: string }).object).toBe('chat.completion');

    const submitted = (await (await fetch(`${gateway}/v1/agent/demo-agent/async`, { method: 'POST', headers: auth, body })).json()) as { task_number: string };
    const settled = await poll(async () => {
      const task = (await (await fetch(`${gateway}/v1/task-query/${submitted.task_number}`, { headers: auth })).json()) as { status: string };
      const listed = (await (await fetch(`${gateway}/apikeys/list`, form({}))).json()) as { data: { items: Array<{ used_quota: number }> } };
      return task.status === '已完成' && listed.data.items[0].used_quota === 2;
    }, 30_000);
    expect(settled).toBe(true);
  });

  it('stops every process cleanly on SIGTERM', async () => {
    if (!ready) return;
    const codes = await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<number | null>((done) => {
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      ),
    );
    expect(codes).toEqual(codes.map(() => 0));
  });
});

async function poll(check: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}
