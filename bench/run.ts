import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { SingleBar, Presets } from 'cli-progress';
import { createGrpcClient } from '@tollgate/kit';
import { KeysClient } from '@tollgate/protos/keys';
import { payerOf } from '../gateway/src/routes/tasks-execute';
import { createBenchAccount, type Account } from './account';
import { startBareExpress } from './bare-express';
import { findPostmaster, measureCpu, postgresCpuMs, tollgateCpuMs, type CpuSpent } from './cpu';
import { CHAT_BODY, runLoad, type LoadResult, type LoadSpec } from './load';
import { profilePhase } from './profile';
import { countUnfinished, seedDocuments, seedTasks, waitForBacklog } from './seed';
import { insertRate, postgresVersion } from './pg-insert';
import { machine, markdown, table, writeJson, type Row, type Section } from './report';
import { serves, startBenchSystem, type BenchSystem } from './system';
import { DEFAULT_WARM_UP, quiet, warmUp, type WarmedUp } from './warm-up';

/** Seconds per measured load run; BENCH_SECONDS overrides. Each is preceded by a warm-up of up to BENCH_WARMUP_SECONDS (bench/warm-up.ts). */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Sections to leave out, comma-separated (e.g. BENCH_SKIP=search). */
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const SYNC_CONNECTIONS = [1, 16, 64];
const RESULTS = process.env.BENCH_RESULTS ?? join(__dirname, 'results', 'latest.json');
const STREAM_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'hello from the benchmark' }], stream: true });
const PASSTHROUGH_BODY = JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hello from the benchmark' }] });
const LIST_SIZES = [100, 100_000];

const steps = 2 + SYNC_CONNECTIONS.length + 2 + 2 + 3 + 2 * LIST_SIZES.length + 3 + 1;
const bar = new SingleBar({ format: 'bench |{bar}| {percentage}% | {step}', hideCursor: true, stream: process.stderr, etaBuffer: 20 }, Presets.shades_classic);

interface Ctx {
  b: BenchSystem;
  postmaster: number | undefined;
  account: Account;
}

const share = (cpu: CpuSpent) => (cpu.tollgateMs > 0 ? Math.round((100 * cpu.mainThreadMs) / cpu.tollgateMs) : 0);
const perRequest = (cpu: CpuSpent, n: number) => (n > 0 ? { tollgateCpuMs: cpu.tollgateMs / n, postgresCpuMs: cpu.postgresMs / n } : {});

const row = (section: string, setting: string, r: LoadResult, cpu?: CpuSpent, note?: string, warm?: WarmedUp): Row => ({
  section,
  setting,
  throughput: r.requestsPerSecond,
  unit: 'req/s',
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
  failed: r.non2xx + r.errors,
  ...(cpu && perRequest(cpu, r.requests)),
  ...(warm && warm.cpuPerRequest.length > 0 && { coldCpuMs: warm.cpuPerRequest[0], warmUp: { seconds: warm.seconds, settled: warm.settled } }),
  note,
});

interface LoadOptions {
  /** Run after each warm-up round and before the measured run (e.g. let the workers finish a backlog). */
  between?: () => Promise<unknown>;
  /** false: one warm-up round only, for a load that is not Tollgate's (its CPU per request cannot settle). */
  steady?: boolean;
  /** With BENCH_CPU_PROFILE: the measured run (not the warm-up) is profiled under this name (bench/profile.ts). */
  profile?: string;
}

/**
 * One autocannon run with the CPU that Tollgate and PostgreSQL spent during it, after the same load
 * was repeated in short rounds until Tollgate's CPU per request settled (bench/warm-up.ts).
 */
async function load(c: Ctx, step: string, spec: LoadSpec, options: LoadOptions = {}): Promise<{ r: LoadResult; cpu: CpuSpent; warm: WarmedUp }> {
  bar.update({ step: `${step} (waiting for the system to be idle)` });
  const idle = await quiet(() => tollgateCpuMs() + postgresCpuMs(c.postmaster));
  if (!idle.quiet) process.stderr.write(`\n${step}: the system was still busy after ${idle.seconds} s of waiting; measured anyway\n`);
  bar.update({ step: `${step} (warm-up)` });
  const policy = options.steady === false ? { ...DEFAULT_WARM_UP, maxSeconds: Math.min(DEFAULT_WARM_UP.maxSeconds, DEFAULT_WARM_UP.roundSeconds) } : DEFAULT_WARM_UP;
  const warm = await warmUp(async (seconds) => {
    const { result, cpu } = await measureCpu(c.postmaster, () => runLoad({ ...spec, seconds }));
    await options.between?.();
    return { requests: result.requests - result.errors, cpuMs: cpu.tollgateMs };
  }, policy);
  bar.update({ step });
  const tick = 1 / (spec.seconds + 1);
  let done = 0;
  const measured = () =>
    runLoad(spec, () => {
      if (done < 1 - tick) {
        done += tick;
        bar.increment(tick, { step });
      }
    });
  const { result, cpu } = await measureCpu(c.postmaster, () => (options.profile ? profilePhase(options.profile, measured) : measured()));
  bar.increment(1 - done, { step });
  return { r: result, cpu, warm };
}

/** A probe request before a load run: the section is skipped unless the route answers `expect`. */
async function probe(url: string, init: RequestInit, expect: number): Promise<string | undefined> {
  const res = await fetch(url, init);
  if (res.status === expect) return undefined;
  return `${init.method ?? 'GET'} ${new URL(url).pathname} answered ${res.status}: ${(await res.text()).slice(0, 160)}`;
}

const keyOf = (c: Ctx) => (c.account.ok ? c.account.apiKey : undefined);
const noAccount = (c: Ctx) => (c.account.ok ? undefined : `no API key: ${c.account.reason}`);

async function syncSection(c: Ctx): Promise<Section> {
  const path = '/v1/agent/demo-agent/sync';
  const skip = noAccount(c) ?? (serves(c.b.system, 'POST', path) ? undefined : `the gateway does not serve POST ${path} yet`);
  const headers = { authorization: `Bearer ${keyOf(c)}`, 'content-type': 'application/json' };
  const failed = skip ?? (await probe(`${c.b.http}${path}`, { method: 'POST', headers, body: CHAT_BODY }, 200));
  if (failed) return { name: 'sync execution', status: 'skipped', reason: failed, rows: [] };
  const rows: Row[] = [];
  for (const n of SYNC_CONNECTIONS) {
    const { r, cpu, warm } = await load(c, `sync x${n}`, { url: `${c.b.http}${path}`, method: 'POST', headers, body: CHAT_BODY, connections: n, seconds: SECONDS }, { profile: `sync-x${n}` });
    rows.push(row('sync execution (demo-agent, echo, JSON)', `${n} client${n > 1 ? 's' : ''}`, r, cpu, `main thread ${share(cpu)} % of Tollgate's CPU, other threads the rest (the services' with TOLLGATE_THREADS=on; Node's GC, JIT and libuv helpers either way)`, warm));
  }
  // A key with a quota also goes through auth check 6 (its usage as billing last reported it).
  const withQuota = await createBenchAccount(c.b, undefined, '999999999');
  if (withQuota.ok) {
    const quotaHeaders = { ...headers, authorization: `Bearer ${withQuota.apiKey}` };
    const { r, cpu, warm } = await load(c, 'sync x16, key with a quota', { url: `${c.b.http}${path}`, method: 'POST', headers: quotaHeaders, body: CHAT_BODY, connections: 16, seconds: SECONDS });
    rows.push(row('sync execution (demo-agent, echo, JSON)', '16 clients, key with a quota', r, cpu, undefined, warm));
  }
  const at16 = rows[1]?.note;
  return { name: 'sync execution', status: 'ok', reason: at16 && `at 16 clients the ${at16}`, rows };
}

/** Runs bench/first-chunk.ts in a child process (its CPU is not Tollgate's) and returns its latencies. */
function firstChunk(args: string[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'first-chunk.ts'), String(SECONDS), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve((JSON.parse(out) as { ms: number[] }).ms) : reject(new Error(`first-chunk ${args[0]} exited ${code}: ${err.slice(0, 400)}`))));
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};

/**
 * The ExecuteStream request the gateway makes for the bench key: the same actor and payer, so the
 * tasks service admits it exactly as it admits the gateway's (the gateway itself does not admit).
 */
async function gatewayLikeRequest(c: Ctx, apiKey: string): Promise<Record<string, unknown>> {
  const keys = createGrpcClient(KeysClient, c.b.system.services.keys.address);
  try {
    const { key, account } = await keys.authenticateKey({ key: apiKey, kind: 'agent' });
    if (!key || !account) throw new Error('the keys service does not know the bench key');
    return {
      actor: { accountId: account.id, isAdmin: false, apiKeyId: key.id },
      kind: 'agent',
      appId: 'demo-agent',
      messages: [{ role: 'user', content: 'hello from the benchmark' }],
      stream: true,
      mode: 'sync',
      payer: payerOf({ key, account }),
    };
  } finally {
    keys.close();
  }
}

async function streamSection(c: Ctx): Promise<Section> {
  const path = '/v1/agent/demo-agent/sync';
  const skip = noAccount(c) ?? (serves(c.b.system, 'POST', path) ? undefined : `the gateway does not serve POST ${path} yet`);
  const account = c.account;
  if (skip || !account.ok) return { name: 'streaming', status: 'skipped', reason: skip, rows: [] };
  bar.update({ step: 'stream via gateway' });
  const via = await measureCpu(c.postmaster, () => firstChunk(['http', `${c.b.http}${path}`, account.apiKey, STREAM_BODY]));
  bar.increment(1, { step: 'stream, tasks directly' });
  const admitted = await gatewayLikeRequest(c, account.apiKey);
  const direct = await firstChunk(['grpc', c.b.system.services.tasks.address, JSON.stringify(admitted)]);
  // As measured before 2026-11-23: no payer, so nothing is admitted (kept to compare with older results).
  const unadmitted = { ...admitted, actor: { accountId: account.accountId, isAdmin: false, apiKeyId: 0 }, payer: undefined };
  const directUnadmitted = await firstChunk(['grpc', c.b.system.services.tasks.address, JSON.stringify(unadmitted)]);
  bar.increment(1);
  const section = 'streamed first chunk, 1 client';
  const added = Math.round((pct(via.result, 50) - pct(direct, 50)) * 100) / 100;
  return {
    name: 'streaming',
    status: 'ok',
    reason: `the gateway adds ${added} ms (p50) to the first chunk over the tasks service's own ExecuteStream of the same admitted request`,
    rows: [
      { section, setting: 'via the gateway (HTTP SSE)', throughput: Math.round(via.result.length / SECONDS), unit: 'req/s', p50Ms: pct(via.result, 50), p99Ms: pct(via.result, 99), ...perRequest(via.cpu, via.result.length) },
      { section, setting: 'tasks ExecuteStream directly, admitted (gRPC)', throughput: Math.round(direct.length / SECONDS), unit: 'streams/s', p50Ms: pct(direct, 50), p99Ms: pct(direct, 99), note: "the gateway's request: same key, same admission; client in a separate process" },
      { section, setting: 'tasks ExecuteStream directly, not admitted', throughput: Math.round(directUnadmitted.length / SECONDS), unit: 'streams/s', p50Ms: pct(directUnadmitted, 50), p99Ms: pct(directUnadmitted, 99), note: 'no payer: the baseline of earlier results' },
      { section, setting: 'added by the gateway (p50, 1 client)', throughput: added, unit: 'ms' },
    ],
  };
}

async function asyncSection(c: Ctx): Promise<Section> {
  const path = '/v1/agent/demo-agent/async';
  const skip = noAccount(c) ?? (serves(c.b.system, 'POST', path) ? undefined : `the gateway does not serve POST ${path} yet`);
  const headers = { authorization: `Bearer ${keyOf(c)}`, 'content-type': 'application/json' };
  const failed = skip ?? (await probe(`${c.b.http}${path}`, { method: 'POST', headers, body: CHAT_BODY }, 200));
  if (failed) return { name: 'async submission', status: 'skipped', reason: failed, rows: [] };
  const backlogDone = () => waitForBacklog(c.b.system.databaseUrls.tasks, 60_000);
  await backlogDone();
  // Every round (and the measured run) starts with the queue empty: the workers finish each round's backlog before the next.
  const { r, cpu, warm } = await load(c, 'async x16', { url: `${c.b.http}${path}`, method: 'POST', headers, body: CHAT_BODY, connections: 16, seconds: SECONDS }, { between: backlogDone, profile: 'async' });
  bar.update({ step: 'async backlog' });
  const backlog = await countUnfinished(c.b.system.databaseUrls.tasks);
  const drained = await measureCpu(c.postmaster, async () => {
    const t = performance.now();
    const left = await waitForBacklog(c.b.system.databaseUrls.tasks, 600_000);
    return { seconds: (performance.now() - t) / 1000, left };
  });
  bar.increment(1);
  const done = r.requests - r.non2xx - r.errors;
  return {
    name: 'async submission',
    status: 'ok',
    reason: drained.result.left > 0 ? `${drained.result.left} tasks still unfinished after 10 minutes` : undefined,
    rows: [
      row('async submission (demo-agent)', '16 clients', r, cpu, 'the workers run the tasks meanwhile; their CPU is in this row too', warm),
      {
        section: 'async backlog: workers finish it',
        setting: `${backlog} of the ${done} tasks unfinished when the submissions stopped`,
        throughput: Math.round(backlog / Math.max(drained.result.seconds, 0.001)),
        unit: 'tasks/s',
        ...(backlog > 0 && perRequest(drained.cpu, backlog)),
        note: backlog > 0 ? `${drained.result.seconds.toFixed(1)} s` : 'the workers kept up with the submissions',
      },
    ],
  };
}

/** The fake upstream in its own process; resolves with its base URL (ends in /v1). */
function startFakeUpstream(): Promise<{ baseUrl: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fake-upstream.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ baseUrl: (JSON.parse(out.split('\n')[0]) as { baseUrl: string }).baseUrl, child });
    });
    child.on('exit', (code) => reject(new Error(`fake upstream exited ${code}`)));
  });
}

async function passthroughSection(c: Ctx, fakeBaseUrl: string): Promise<Section> {
  const path = '/v1/chat/completions';
  if (!serves(c.b.system, 'POST', path)) return { name: 'passthrough', status: 'skipped', reason: `the gateway does not serve POST ${path}`, rows: [] };
  const provider = await createBenchAccount(c.b, 'provider:fake');
  if (!provider.ok) return { name: 'passthrough', status: 'skipped', reason: provider.reason, rows: [] };
  const headers = { authorization: `Bearer ${provider.apiKey}`, 'content-type': 'application/json' };
  const failed = await probe(`${c.b.http}${path}`, { method: 'POST', headers, body: PASSTHROUGH_BODY }, 200);
  if (failed) return { name: 'passthrough', status: 'skipped', reason: failed, rows: [] };
  const direct = await load(c, 'upstream directly', { url: `${fakeBaseUrl}/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json' }, body: PASSTHROUGH_BODY, connections: 1, seconds: SECONDS }, { steady: false });
  const via = await load(c, 'passthrough', { url: `${c.b.http}${path}`, method: 'POST', headers, body: PASSTHROUGH_BODY, connections: 1, seconds: SECONDS }, { profile: 'passthrough' });
  // CPU per request where the admissions and settlements of concurrent requests share statements, as the sync rows at 16 clients.
  const via16 = await load(c, 'passthrough x16', { url: `${c.b.http}${path}`, method: 'POST', headers, body: PASSTHROUGH_BODY, connections: 16, seconds: SECONDS });
  // autocannon's latencies are whole milliseconds: the added p50 is timed by a sequential client in its own process instead.
  bar.update({ step: 'passthrough, sequential timing' });
  const directMs = await firstChunk(['http', `${fakeBaseUrl}/chat/completions`, 'sk-unused', PASSTHROUGH_BODY]);
  const viaMs = await firstChunk(['http', `${c.b.http}${path}`, provider.apiKey, PASSTHROUGH_BODY]);
  const section = 'passthrough to a local OpenAI-compatible fake';
  const added = Math.round((pct(viaMs, 50) - pct(directMs, 50)) * 100) / 100;
  const timed = (setting: string, ms: number[]): Row => ({ section, setting, throughput: Math.round(ms.length / SECONDS), unit: 'req/s, sequential', p50Ms: pct(ms, 50), p99Ms: pct(ms, 99) });
  return {
    name: 'passthrough',
    status: 'ok',
    reason: `the gateway adds ${added} ms (p50, sequential client) over calling the fake directly`,
    rows: [
      row(section, 'the fake directly, 1 client', direct.r, undefined, 'fake in its own process'),
      row(section, 'through the gateway (key, admission, settlement), 1 client', via.r, via.cpu, undefined, via.warm),
      row(section, 'through the gateway, 16 clients', via16.r, via16.cpu, undefined, via16.warm),
      timed('the fake directly, 1 client, timed to the µs', directMs),
      timed('through the gateway, 1 client, timed to the µs', viaMs),
      { section, setting: 'added by the gateway (p50, 1 client)', throughput: added, unit: 'ms' },
    ],
  };
}

async function listSection(c: Ctx): Promise<Section> {
  if (!c.account.ok) return { name: 'lists', status: 'skipped', reason: noAccount(c), rows: [] };
  // A second account of its own, so that its task list holds exactly the seeded rows.
  const lister = await createBenchAccount(c.b);
  if (!lister.ok) return { name: 'lists', status: 'skipped', reason: lister.reason, rows: [] };
  const rows: Row[] = [];
  let seeded = 0;
  for (const size of LIST_SIZES) {
    bar.update({ step: `seed ${size.toLocaleString('en')} rows` });
    await seedTasks(c.b.system.databaseUrls.tasks, lister.accountId, size - seeded);
    await seedDocuments(c.b.system.databaseUrls.docs, lister.accountId, size - seeded);
    seeded = size;
    const taskList = await load(c, `task list ${size}`, {
      url: `${c.b.http}/v1/task-query/list`,
      method: 'POST',
      headers: { authorization: `Bearer ${lister.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ page: 1, page_size: 20 }),
      connections: 16,
      seconds: SECONDS,
    });
    rows.push(row('task list, first page of 20', `${size.toLocaleString('en')} tasks, 16 clients`, taskList.r, taskList.cpu, undefined, taskList.warm));
    const docList = await load(c, `document list ${size}`, { url: `${c.b.https}/api/v1/documents?page=1&limit=20`, headers: { authorization: `Bearer ${lister.userToken}` }, connections: 16, seconds: SECONDS });
    rows.push(row('document list, first page of 20', `${size.toLocaleString('en')} documents, 16 clients`, docList.r, docList.cpu, undefined, docList.warm));
  }
  return { name: 'lists', status: 'ok', rows };
}

async function overheadSection(c: Ctx): Promise<Section> {
  const bare = await startBareExpress();
  try {
    const rows: Row[] = [];
    const bareRun = await load(c, 'bare express', { url: bare.url, connections: 16, seconds: SECONDS });
    rows.push(row('bare Express handler (in the bench process)', '16 clients', bareRun.r));
    const health = await load(c, 'gateway /healthz', { url: `${c.b.http}/healthz`, connections: 16, seconds: SECONDS });
    rows.push(row('gateway /healthz (middleware only)', '16 clients', health.r, health.cpu, undefined, health.warm));
    const path = '/v1/task-query/bench-no-such-task';
    const skip = noAccount(c) ?? (serves(c.b.system, 'GET', path) ? undefined : `the gateway does not serve GET /v1/task-query/<task_number> yet`);
    const headers = { authorization: `Bearer ${keyOf(c)}` };
    const failed = skip ?? (await probe(`${c.b.http}${path}`, { headers }, 404));
    if (failed) {
      bar.increment(1);
      return { name: 'gateway overhead', status: 'ok', reason: `cached-key row skipped: ${failed}`, rows };
    }
    const { r, cpu, warm } = await load(c, 'gateway cached key', { url: `${c.b.http}${path}`, headers, connections: 16, seconds: SECONDS });
    rows.push({ ...row('gateway, cached API key → tasks gRPC → 404', '16 clients', r, cpu, undefined, warm), failed: r.errors, note: '404 is the expected answer' });
    return { name: 'gateway overhead', status: 'ok', rows };
  } finally {
    await bare.stop();
  }
}

async function insertSection(c: Ctx): Promise<Section> {
  const rows: Row[] = [];
  for (const clients of [1, 16]) {
    bar.update({ step: `pg insert x${clients}` });
    const { result: r, cpu } = await measureCpu(c.postmaster, () => insertRate(c.b.system.databaseUrls.tasks, clients, SECONDS));
    rows.push({ section: 'PostgreSQL single-row INSERT (autocommit)', setting: `${clients} client${clients > 1 ? 's' : ''}`, throughput: r.rowsPerSecond, unit: 'rows/s', p50Ms: r.p50Ms, p99Ms: r.p99Ms, postgresCpuMs: cpu.postgresMs / (r.rowsPerSecond * r.seconds) });
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
  return { name: 'search', status: 'ok', reason: 'in the bench process, not through the gateway: no CPU split', rows, raw };
}

async function section(name: string, run: () => Promise<Section>): Promise<Section> {
  if (SKIP.has(name)) return { name, status: 'skipped', reason: 'BENCH_SKIP', rows: [] };
  try {
    return await run();
  } catch (err) {
    return { name, status: 'failed', reason: err instanceof Error ? err.message : String(err), rows: [] };
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadAtStart = loadavg();
  process.stderr.write('starting a fake upstream and the embedded system (embedded PostgreSQL, services in worker threads, in-process bus)…\n');
  const fake = await startFakeUpstream();
  const b = await startBenchSystem({ PROVIDERS: JSON.stringify({ fake: { base_url: fake.baseUrl, api_key: 'sk-bench-upstream' } }) });
  // Ctrl-C stops the system (its PostgreSQL runs in its own process group) before leaving.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      bar.stop();
      process.stderr.write(`\n${signal}: stopping the system…\n`);
      void b.stop().finally(() => {
        fake.child.stdin!.end();
        process.exit(130);
      });
    });
  }
  const sections: Section[] = [];
  try {
    const pg = await postgresVersion(b.system.databaseUrls.tasks);
    const c: Ctx = { b, postmaster: findPostmaster(), account: await createBenchAccount(b) };
    bar.start(steps, 0, { step: 'starting' });
    sections.push(await section('postgres insert', () => insertSection(c)));
    sections.push(await section('sync execution', () => syncSection(c)));
    sections.push(await section('streaming', () => streamSection(c)));
    sections.push(await section('async submission', () => asyncSection(c)));
    sections.push(await section('passthrough', () => passthroughSection(c, fake.baseUrl)));
    sections.push(await section('lists', () => listSection(c)));
    sections.push(await section('gateway overhead', () => overheadSection(c)));
    sections.push(await section('search', () => searchSection(b)));
    bar.update(steps, { step: 'done' });
    bar.stop();

    const insertRows = sections.find((s) => s.name === 'postgres insert')?.rows ?? [];
    const inserts = { one: insertRows[0]?.throughput, sixteen: insertRows[1]?.throughput };
    const result = {
      when: new Date().toISOString(),
      seconds: SECONDS,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      machine: machine(pg, loadAtStart),
      mode: `embedded default, threads ${process.env.TOLLGATE_THREADS ?? 'on'}: gateway, in-process bus, keys, billing and tasks on the main thread, docs and search in a worker thread (off: all on the main thread), embedded PostgreSQL; Tollgate CPU = the bench process (all threads), load generator and fake upstream in other processes`,
      insertsPerSecond: inserts,
      sections,
    };
    writeJson(RESULTS, result);
    process.stdout.write(`\n${table(sections, inserts)}\n\n`);
    for (const s of sections) if (s.status !== 'ok' || s.reason) process.stdout.write(`note: ${s.name}: ${s.status === 'ok' ? '' : `${s.status}: `}${s.reason}\n`);
    process.stdout.write(`machine: ${JSON.stringify(result.machine)}\nwritten: ${RESULTS} (${result.durationSeconds} s)\n\nMarkdown:\n${markdown(sections, inserts)}\n`);
  } finally {
    bar.stop();
    await b.stop();
    fake.child.stdin!.end();
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
