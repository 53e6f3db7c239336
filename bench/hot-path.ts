/**
 * CPU per request of the execution hot path: `pnpm tsx bench/hot-path.ts`.
 *
 * Starts the embedded system in this process on fresh databases of the PostgreSQL at
 * TEST_DATABASE_URL / 127.0.0.1:5432, drives it with autocannon (a child process), and reports per
 * scenario: throughput, p50/p99, Tollgate CPU ms per request (this process and its descendants,
 * every thread, from /proc, the load generator excluded) and PostgreSQL CPU ms per request (the
 * backends connected to Tollgate's databases, from /proc), beside the 16-client single-row INSERT
 * rate of the same PostgreSQL in the same run. CPU per request is the robust figure on a shared,
 * noisy machine; wall-clock numbers are not.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SERVICE_NAMES, silentLogger } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { loadSystemConfig, startEmbeddedSystem } from '@tollgate/system';
import { runLoad } from './load';
import { insertRate } from './pg-insert';
import { profilePhase } from './profile';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TICK_MS = 1000 / 100; // USER_HZ

function statOf(pid: number): { ppid: number; cpuMs: number; cmd: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return { ppid: Number(rest[1]), cpuMs: (Number(rest[11]) + Number(rest[12])) * TICK_MS, cmd };
  } catch {
    return null;
  }
}

/** CPU ms of this process and its descendants, the load generator excluded. */
function tollgateCpuMs(): number {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const stats = new Map(all.map((pid) => [pid, statOf(pid)] as const));
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of stats) if (s && !ours.has(pid) && ours.has(s.ppid) && !s.cmd.includes('autocannon')) (ours.add(pid), (grew = true));
  }
  return [...ours].reduce((sum, pid) => sum + (pid === process.pid ? cpuSelf() : (stats.get(pid)?.cpuMs ?? 0)), 0);
}
const cpuSelf = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function postgresCpuMs(admin: pg.Pool, databases: string[]): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])', [databases]);
  return new Map(rows.map((r) => [r.pid, statOf(r.pid)?.cpuMs ?? 0]));
}

const pgDelta = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

async function main() {
  const urls: Record<string, string> = {};
  for (const name of SERVICE_NAMES) {
    const url = await createTestDatabase(`bench_${name}`);
    if (!url) throw new Error('no PostgreSQL for the benchmark');
    urls[`DATABASE_URL_${name.toUpperCase()}`] = url;
  }
  const dbNames = Object.values(urls).map((u) => new URL(u).pathname.slice(1));
  const adminUrl = new URL(Object.values(urls)[0]);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Pool({ connectionString: adminUrl.toString(), max: 1 });
  const token = 'tg-bench-admin-token-0123456789abcdef';
  const env = {
    ...urls,
    TOLLGATE_ADMIN_TOKEN: token,
    TOLLGATE_DATA_DIR: `/tmp/tg-hotpath-${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'silent',
    BILLING_RPM_ENTERPRISE: '100000000',
    BILLING_CONCURRENCY_ENTERPRISE: '100000',
  };
  const system = await startEmbeddedSystem({ config: loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env }), log: silentLogger(), env });
  const http = system.gateway.httpUrl;
  try {
    const { Agent, fetch: tlsFetch } = await import('undici');
    const dispatcher = new Agent({ connect: { ca: system.gateway.tlsCert } });
    const user = (await (
      await tlsFetch(`${system.gateway.httpsUrl}/api/v1/users`, {
        method: 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', email: `bench-${Date.now()}@bench.invalid`, level: 'enterprise' }),
      })
    ).json()) as { data: { token: string } };
    const key = (await (await fetch(`${http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: user.data.token, name: 'bench' }) })).json()) as {
      data: { key: string };
    };
    const headers = { authorization: `Bearer ${key.data.key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hello from the benchmark' }] });
    const insert16 = await insertRate(Object.values(urls)[0], 16, 4);

    // What the system burns with no request at all (pollers, sweeps, timers), per second: subtracted below.
    const idleSeconds = 5;
    const idlePg0 = await postgresCpuMs(admin, dbNames);
    const idle0 = tollgateCpuMs();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idlePerSecond = (tollgateCpuMs() - idle0) / idleSeconds;
    const idlePgPerSecond = pgDelta(idlePg0, await postgresCpuMs(admin, dbNames)) / idleSeconds;

    const rows: string[] = [];
    const scenario = async (name: string, url: string, connections: number, reqBody: string) => {
      await runLoad({ url, method: 'POST', headers, body: reqBody, connections, seconds: 2 }); // warm-up
      const pgBefore = await postgresCpuMs(admin, dbNames);
      const cpuBefore = tollgateCpuMs();
      const started = performance.now();
      const r = await profilePhase(`${name}-${connections}`.replace(/\W+/g, '-'), () => runLoad({ url, method: 'POST', headers, body: reqBody, connections, seconds: SECONDS }));
      const elapsed = (performance.now() - started) / 1000;
      const cpu = tollgateCpuMs() - cpuBefore - idlePerSecond * elapsed;
      const pgCpu = pgDelta(pgBefore, await postgresCpuMs(admin, dbNames)) - idlePgPerSecond * elapsed;
      const ok = r.requests - r.non2xx - r.errors;
      const line = `| ${name} | ${connections} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${(cpu / ok).toFixed(2)} | ${(pgCpu / ok).toFixed(2)} | ${((100 * r.requestsPerSecond) / insert16.rowsPerSecond).toFixed(1)} % | ${r.non2xx + r.errors} |`;
      rows.push(line);
    };
    await scenario('sync JSON (echo)', `${http}/v1/agent/demo-agent/sync`, 1, body);
    await scenario('sync JSON (echo)', `${http}/v1/agent/demo-agent/sync`, 16, body);
    await scenario('sync stream (echo)', `${http}/v1/agent/demo-agent/sync`, 1, JSON.stringify({ ...JSON.parse(body), stream: true }));
    await scenario('async submission', `${http}/v1/agent/demo-agent/async`, 16, body);
    await dispatcher.close();
    const out = [
      `16-client single-row INSERT rate of the same PostgreSQL: ${insert16.rowsPerSecond}/s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
      `idle CPU subtracted: Tollgate ${idlePerSecond.toFixed(1)} ms/s, PostgreSQL ${idlePgPerSecond.toFixed(1)} ms/s`,
      '',
      '| scenario | clients | req/s | p50 ms | p99 ms | Tollgate CPU ms/req | PostgreSQL CPU ms/req | of INSERT rate | failed |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ];
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await system.stop();
    await admin.end();
    for (const url of Object.values(urls)) await dropTestDatabase(url);
    await releaseTestPostgres();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
