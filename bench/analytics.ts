/**
 * Analytics benchmark: 90-day reports over the rollups after a million recorded requests.
 * Starts the docs service on a fresh database of the local PostgreSQL, records BENCH_REQUESTS
 * (default 1,000,000) request measurements spread over the last 90 days (200 accounts, 10
 * endpoint groups, 500 documents read) through RecordRequests in batches of 5,000 — the path a
 * gateway uses — then times each report (usage, performance, users, content) over 90 days by day,
 * for everyone and for one account, 20 times each, as gRPC calls from this process.
 * Run: pnpm exec tsx bench/analytics.ts   (not a test: it prints numbers, it asserts nothing)
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createGrpcClient, createMemoryBus, silentLogger, type ServiceHandle } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { SiteClient, type RequestRecord } from '@tollgate/protos/site';
import { docsService } from '../services/docs/src/service';
import { profilePhase } from './profile';
import { loadDocsConfig } from '../services/docs/src/config';
import { seededRandom } from '@tollgate/kit/src/testing/seeded-random';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 1_000_000);
const BATCH = 5_000;
const DAYS = 90;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ACCOUNTS = 200;
const GROUPS = ['documents', 'search', 'users', 'analytics', 'config', 'activity', 'keys', 'tasks', 'executions', 'billing'];
const DAY_MS = 86_400_000;

const rand = seededRandom(7);

/** A request at `at`: traffic arrives in time order, so one gateway batch spans a short time, as in production. */
function record(at: number): RequestRecord {
  const group = GROUPS[Math.floor(rand() ** 1.5 * GROUPS.length)];
  const r = rand();
  const status = r < 0.9 ? 200 : r < 0.97 ? 404 : r < 0.99 ? 429 : 500;
  const read = group === 'documents' && status === 200 && rand() < 0.5;
  return {
    at,
    accountId: 1 + Math.floor(rand() ** 2 * ACCOUNTS),
    group,
    status,
    latencyMs: Math.exp(rand() * 6) / 4,
    documentId: read ? 1 + Math.floor(rand() ** 3 * 500) : 0,
  };
}

const percentile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

async function main(): Promise<void> {
  const url = await createTestDatabase('bench_analytics');
  if (!url) throw new Error('no PostgreSQL for the benchmark (TEST_DATABASE_URL or 127.0.0.1:5432)');
  const bus = createMemoryBus();
  const handle: ServiceHandle = await docsService.start(loadDocsConfig({ DATABASE_URL: url, GRPC_PORT: '0' }), { bus, log: silentLogger() });
  const site = createGrpcClient(SiteClient, handle.address, { timeoutMs: 120_000 });
  try {
    const now = Date.now();
    const seedStart = Date.now();
    for (let sent = 0; sent < TOTAL; sent += BATCH) {
      const start = now - DAYS * DAY_MS;
      const records = Array.from({ length: Math.min(BATCH, TOTAL - sent) }, (_, i) => record(start + Math.floor(((sent + i) / TOTAL) * DAYS * DAY_MS)));
      await site.recordRequests({ batchId: randomUUID(), records });
      if ((sent / BATCH) % 20 === 0) process.stderr.write(`recorded ${sent + records.length} of ${TOTAL}\n`);
    }
    const seedMs = Date.now() - seedStart;
    // what autovacuum does on its own after a bulk load; the rollups were upserted many times over
    const vacuumMs = await vacuum(url);
    const to = new Date(now).toISOString().slice(0, 10);
    const from = new Date(now - (DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
    const admin = { accountId: 1, isAdmin: true, apiKeyId: 0 };
    const rows: Array<{ report: string; scope: string; p50: number; p95: number; max: number; cpu: number; bytes: number }> = [];
    // BENCH_CPU_PROFILE=<prefix>: the timed calls (not the recording) are profiled (bench/profile.ts)
    await profilePhase('reports', async () => {
    for (const report of ['usage', 'performance', 'users', 'content']) {
      for (const [scope, userId] of [['everyone', 0], ['account 2', 2]] as const) {
        const times: number[] = [];
        const cpus: number[] = [];
        let bytes = 0;
        for (let i = 0; i < RUNS + 2; i++) {
          const t0 = process.hrtime.bigint();
          const c0 = process.cpuUsage();
          const out = await site.analytics({ actor: admin, report, from, to, interval: 'day', userId, limit: 10 });
          const c = process.cpuUsage(c0);
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (i >= 2) {
            // the first two warm the plan caches
            times.push(ms);
            cpus.push((c.user + c.system) / 1000);
          }
          bytes = out.reportJson.length;
        }
        rows.push({ report, scope, p50: percentile(times, 0.5), p95: percentile(times, 0.95), max: Math.max(...times), cpu: percentile(cpus, 0.5), bytes });
      }
    }
    });
    const tables = await countRows(url);
    const server = await serverTimes(url, from, to);
    console.log(`\n${TOTAL.toLocaleString('en')} requests recorded over ${DAYS} days in ${(seedMs / 1000).toFixed(1)} s (${Math.round(TOTAL / (seedMs / 1000)).toLocaleString('en')}/s through RecordRequests)`);
    console.log(`rollup rows: request_rollups ${tables.request.toLocaleString('en')}, event_rollups ${tables.event.toLocaleString('en')}`);
    console.log(`VACUUM ANALYZE of the rollups before timing: ${(vacuumMs / 1000).toFixed(1)} s`);
    console.log(`PostgreSQL execution time (EXPLAIN ANALYZE, median of 5) of the 90-day queries for everyone: ${server.map(([q, ms]) => `${q} ${ms.toFixed(1)} ms`).join(', ')}`);
    console.log(`load average during the run: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (${cpus().length} cores)`);
    console.log(`\n| report (90 days by day) | scope | wall p50 ms | wall p95 ms | wall max ms | Node CPU p50 ms | answer bytes |\n|---|---|---:|---:|---:|---:|---:|`);
    for (const r of rows) console.log(`| ${r.report} | ${r.scope} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.cpu.toFixed(1)} | ${r.bytes.toLocaleString('en')} |`);
  } finally {
    site.close();
    await handle.stop();
    await bus.close();
    await dropTestDatabase(url);
    await releaseTestPostgres();
  }
}

async function vacuum(url: string): Promise<number> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const t0 = Date.now();
    await c.query('VACUUM ANALYZE request_rollups');
    await c.query('VACUUM ANALYZE event_rollups');
    return Date.now() - t0;
  } finally {
    await c.end();
  }
}

/** Server-side execution time of the rollup reads behind the 90-day reports (everyone), without the network or Node. */
async function serverTimes(url: string, from: string, to: string): Promise<Array<[string, number]>> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  const range = `period_start >= '${from}' AND period_start < ('${to}'::date + 1)`;
  const queries: Array<[string, string]> = [
    ['usage cells', `SELECT period_start, "group", status_class, count FROM request_rollups WHERE period_kind = 'd' AND account_id = 0 AND status_class <> 0 AND ${range}`],
    [
      'performance cells (one histogram per period and group)',
      `SELECT period_start, "group", sum(count) FILTER (WHERE status_class = 0), sum(count) FILTER (WHERE status_class = 5), sum(count) FILTER (WHERE status_class = 4),
              max(array_to_string(latency, ',')) FILTER (WHERE status_class = 0)
       FROM request_rollups WHERE period_kind = 'd' AND account_id = 0 AND ${range} GROUP BY period_start, "group"`,
    ],
    ['active accounts', `SELECT period_start, count(*) FROM event_rollups WHERE metric = 'request' AND period_kind = 'd' AND account_id <> 0 AND ${range} GROUP BY 1`],
    ['top documents', `SELECT dim, sum(count) FROM event_rollups WHERE metric = 'document.view' AND period_kind = 'd' AND account_id = 0 AND ${range} GROUP BY 1 ORDER BY 2 DESC LIMIT 10`],
  ];
  try {
    const out: Array<[string, number]> = [];
    for (const [name, sql] of queries) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await c.query<{ 'QUERY PLAN': Array<{ 'Execution Time': number }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
        times.push(r.rows[0]['QUERY PLAN'][0]['Execution Time']);
      }
      out.push([name, percentile(times, 0.5)]);
    }
    return out;
  } finally {
    await c.end();
  }
}

async function countRows(url: string): Promise<{ request: number; event: number }> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ request: string; event: string }>('SELECT (SELECT count(*) FROM request_rollups) AS request, (SELECT count(*) FROM event_rollups) AS event');
    return { request: Number(r.rows[0].request), event: Number(r.rows[0].event) };
  } finally {
    await c.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
