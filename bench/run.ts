import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { SingleBar, Presets } from 'cli-progress';
import { createBenchAccount } from './account';
import { startBareExpress } from './bare-express';
import { runLoad, type LoadResult } from './load';
import { insertRate, postgresVersion } from './pg-insert';
import { machine, table, writeJson, type Row, type Section } from './report';
import { serves, startBenchSystem, type BenchSystem } from './system';

/** Seconds per load run; BENCH_SECONDS overrides (a full run stays well under five minutes at the default). */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const SYNC_CONNECTIONS = [1, 16, 64];
const RESULTS = join(__dirname, 'results', 'latest.json');
const CHAT_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'hello from the benchmark' }] });

const steps = SYNC_CONNECTIONS.length + 1 + 3 + 2;
const bar = new SingleBar({ format: 'bench |{bar}| {percentage}% | {step}', hideCursor: true, stream: process.stderr, etaBuffer: 20 }, Presets.shades_classic);

const row = (section: string, setting: string, r: LoadResult, note?: string): Row => ({
  section,
  setting,
  throughput: r.requestsPerSecond,
  unit: 'req/s',
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
  failed: r.non2xx + r.errors,
  note,
});

function load(step: string, spec: Parameters<typeof runLoad>[0]): Promise<LoadResult> {
  bar.update({ step });
  const tick = 1 / (spec.seconds + 1);
  let done = 0;
  return runLoad(spec, () => {
    if (done < 1 - tick) {
      done += tick;
      bar.increment(tick, { step });
    }
  }).finally(() => bar.increment(1 - done, { step }));
}

/** A probe request before a load run: the section is skipped unless the route answers `expect`. */
async function probe(url: string, init: RequestInit, expect: number): Promise<string | undefined> {
  const res = await fetch(url, init);
  if (res.status === expect) return undefined;
  return `${init.method ?? 'GET'} ${new URL(url).pathname} answered ${res.status}: ${(await res.text()).slice(0, 160)}`;
}

async function syncSection(b: BenchSystem, apiKey: string | undefined, why: string | undefined): Promise<Section> {
  const path = '/v1/agent/demo-agent/sync';
  const skip = why ?? (serves(b.system, 'POST', path) ? undefined : `the gateway does not serve POST ${path} yet`);
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const failed = skip ?? (await probe(`${b.http}${path}`, { method: 'POST', headers, body: CHAT_BODY }, 200));
  if (failed) return { name: 'sync execution', status: 'skipped', reason: failed, rows: [] };
  const rows: Row[] = [];
  for (const c of SYNC_CONNECTIONS) {
    rows.push(row('sync execution (demo-agent, JSON)', `${c} client${c > 1 ? 's' : ''}`, await load(`sync x${c}`, { url: `${b.http}${path}`, method: 'POST', headers, body: CHAT_BODY, connections: c, seconds: SECONDS })));
  }
  return { name: 'sync execution', status: 'ok', rows };
}

async function asyncSection(b: BenchSystem, apiKey: string | undefined, why: string | undefined): Promise<Section> {
  const path = '/v1/agent/demo-agent/async';
  const skip = why ?? (serves(b.system, 'POST', path) ? undefined : `the gateway does not serve POST ${path} yet`);
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const failed = skip ?? (await probe(`${b.http}${path}`, { method: 'POST', headers, body: CHAT_BODY }, 200));
  if (failed) return { name: 'async submission', status: 'skipped', reason: failed, rows: [] };
  const r = await load('async x16', { url: `${b.http}${path}`, method: 'POST', headers, body: CHAT_BODY, connections: 16, seconds: SECONDS });
  return { name: 'async submission', status: 'ok', rows: [row('async submission (demo-agent)', '16 clients', r)] };
}

async function overheadSection(b: BenchSystem, apiKey: string | undefined, why: string | undefined): Promise<Section> {
  const bare = await startBareExpress();
  try {
    const rows: Row[] = [];
    rows.push(row('bare Express handler', '16 clients', await load('bare express', { url: bare.url, connections: 16, seconds: SECONDS })));
    rows.push(row('gateway /healthz (middleware only)', '16 clients', await load('gateway /healthz', { url: `${b.http}/healthz`, connections: 16, seconds: SECONDS })));
    const path = '/v1/task-query/bench-no-such-task';
    const skip = why ?? (serves(b.system, 'GET', path) ? undefined : `the gateway does not serve GET /v1/task-query/<task_number> yet`);
    const headers = { authorization: `Bearer ${apiKey}` };
    const failed = skip ?? (await probe(`${b.http}${path}`, { headers }, 404));
    if (failed) {
      bar.increment(1);
      return { name: 'gateway overhead', status: 'ok', reason: `cached-key row skipped: ${failed}`, rows };
    }
    const r = await load('gateway cached key', { url: `${b.http}${path}`, headers, connections: 16, seconds: SECONDS });
    rows.push({ ...row('gateway, cached API key → tasks gRPC → 404', '16 clients', r), failed: r.errors, note: '404 is the expected answer' });
    return { name: 'gateway overhead', status: 'ok', rows };
  } finally {
    await bare.stop();
  }
}

async function insertSection(b: BenchSystem): Promise<Section> {
  const rows: Row[] = [];
  for (const clients of [1, 16]) {
    bar.update({ step: `pg insert x${clients}` });
    const r = await insertRate(b.system.databaseUrls.tasks, clients, SECONDS);
    rows.push({ section: 'PostgreSQL single-row INSERT', setting: `${clients} client${clients > 1 ? 's' : ''}`, throughput: r.rowsPerSecond, unit: 'rows/s', p50Ms: r.p50Ms, p99Ms: r.p99Ms });
    bar.increment(1);
  }
  return { name: 'postgres insert', status: 'ok', rows };
}

async function searchSection(b: BenchSystem): Promise<Section> {
  const file = join(__dirname, 'search.ts');
  if (!existsSync(file)) return { name: 'search', status: 'skipped', reason: 'bench/search.ts does not exist yet', rows: [] };
  // Importing a standalone script would run it: only a module that exports the entry point is called.
  if (!/export\s+(async\s+function\s+runSearchBench|default)\b/.test(readFileSync(file, 'utf8'))) {
    return { name: 'search', status: 'skipped', reason: 'bench/search.ts exports no runSearchBench (it is a standalone script: pnpm exec tsx bench/search.ts; results in docs/search.md)', rows: [] };
  }
  const mod = (await import('./search' as string)) as Record<string, unknown>;
  const fn = (mod.runSearchBench ?? mod.default) as ((opts: { system: BenchSystem['system']; https: string }) => Promise<unknown>) | undefined;
  if (typeof fn !== 'function') return { name: 'search', status: 'skipped', reason: `bench/search.ts exports no runSearchBench (exports: ${Object.keys(mod).join(', ') || 'none'})`, rows: [] };
  bar.update({ step: 'search' });
  const raw = await fn({ system: b.system, https: b.https });
  const rows = Array.isArray((raw as { rows?: unknown })?.rows) ? ((raw as { rows: Row[] }).rows) : [];
  return { name: 'search', status: 'ok', rows, raw };
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = loadavg();
  process.stderr.write('starting the embedded system (embedded PostgreSQL, in-process bus)…\n');
  const b = await startBenchSystem();
  const sections: Section[] = [];
  try {
    const pg = await postgresVersion(b.system.databaseUrls.tasks);
    const account = await createBenchAccount(b);
    const apiKey = account.ok ? account.apiKey : undefined;
    const why = account.ok ? undefined : `no API key: ${account.reason}`;
    bar.start(steps, 0, { step: 'starting' });
    sections.push(await insertSection(b));
    sections.push(await syncSection(b, apiKey, why));
    if (sections.at(-1)!.status !== 'ok') bar.increment(SYNC_CONNECTIONS.length);
    sections.push(await asyncSection(b, apiKey, why));
    if (sections.at(-1)!.status !== 'ok') bar.increment(1);
    sections.push(await overheadSection(b, apiKey, why));
    sections.push(await searchSection(b));
    bar.update(steps, { step: 'done' });
    bar.stop();

    const baseline = sections.find((s) => s.name === 'postgres insert')?.rows[0]?.throughput;
    const result = { when: new Date().toISOString(), seconds: SECONDS, durationSeconds: Math.round((Date.now() - started) / 1000), machine: machine(pg, loadAtStart), baselineInsertsPerSecond: baseline, sections };
    writeJson(RESULTS, result);
    process.stdout.write(`\n${table(sections, baseline)}\n\n`);
    for (const s of sections) if (s.status !== 'ok' || s.reason) process.stdout.write(`note: ${s.name}: ${s.status === 'ok' ? '' : `${s.status}: `}${s.reason}\n`);
    process.stdout.write(`machine: ${JSON.stringify(result.machine)}\nwritten: ${RESULTS} (${result.durationSeconds} s)\n`);
  } finally {
    bar.stop();
    await b.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    bar.stop();
    console.error(err);
    process.exit(1);
  },
);
