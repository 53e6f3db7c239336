/**
 * Search through the whole embedded system (gateway over HTTPS → gRPC → services, embedded
 * PostgreSQL, in-process bus): bulk import of the generated corpus until all of it is
 * searchable, one-word search and suggest at 16 clients over that corpus, single creates at 16
 * clients, create → searchable. Each load is warmed up until its CPU per request settles (bench/warm-up.ts).
 * The load runs in an autocannon child process, so the load generator never shares the event
 * loop of the system under test.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch, type RequestInit } from 'undici';
import { silentLogger } from '@tollgate/kit';
import { loadSystemConfig, startEmbeddedSystem } from '@tollgate/system';
import { profilePhase } from './profile';
import type { Row } from './report';
import { quiet, warmUp, type WarmedUp } from './warm-up';

const ADMIN = 'tg-bench-admin-token-0123456789abcdef';
const BULK = 1_000;
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export interface CorpusDoc {
  title: string;
  content: string;
  category: string;
  tags: string[];
}

interface Loaded {
  /** CPU ms of this process (the whole system but PostgreSQL) per request: robust on a shared machine. */
  cpuMs: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** autocannon in a child process; `[<id>]` in the body becomes a unique id per request. */
function autocannon(url: string, opts: { method?: string; headers: Record<string, string>; body?: string; connections: number; seconds: number }): Promise<Loaded> {
  const args = [require.resolve('autocannon/autocannon.js'), '--json', '-c', String(opts.connections), '-d', String(opts.seconds), '-m', opts.method ?? 'GET'];
  for (const [k, v] of Object.entries(opts.headers)) args.push('-H', `${k}=${v}`);
  if (opts.body !== undefined) args.push('-b', opts.body, '--idReplacement');
  args.push(url);
  const cpu0 = cpuNow();
  return new Promise((resolve, reject) => {
    // The gateway's certificate is self-signed and the target is loopback only.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err.trim().slice(0, 300)}`));
      const r = JSON.parse(out) as { requests: { total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; duration: number };
      resolve({ cpuMs: (cpuNow() - cpu0) / Math.max(1, r.requests.total), rps: Math.round(r.requests.total / r.duration), p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors });
    });
  });
}

type LoadOpts = Parameters<typeof autocannon>[1];

/**
 * The same load in short rounds until the system's CPU per request settles (bench/warm-up.ts), then
 * the measured run (profiled as `profile` with BENCH_CPU_PROFILE); `warmCreated`: the warm-up's 2xx answers.
 */
async function warmed(url: string, opts: LoadOpts, profile?: string): Promise<Loaded & { warm: WarmedUp; warmCreated: number }> {
  let warmCreated = 0;
  const warm = await warmUp(async (seconds) => {
    const r = await autocannon(url, { ...opts, seconds });
    warmCreated += r.requests - r.non2xx - r.errors;
    return { requests: r.requests - r.errors, cpuMs: r.cpuMs * r.requests };
  });
  const measured = () => autocannon(url, opts);
  return { ...(await (profile ? profilePhase(profile, measured) : measured())), warm, warmCreated };
}

const coldNote = (r: { warm: WarmedUp }) => (r.warm.cpuPerRequest.length > 0 ? `; cold ${f(r.warm.cpuPerRequest[0])} ms, warmed ${r.warm.seconds} s${r.warm.settled ? '' : ', not settled'}` : '');

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s[s.length - 1] };
};
const now = () => Number(process.hrtime.bigint()) / 1e6;
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
const f = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export async function systemBench(corpus: CorpusDoc[], searchWords: string[]): Promise<{ lines: string[]; rows: Row[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-search-bench-'));
  chmodSync(dataDir, 0o755);
  const env: Record<string, string> = { TOLLGATE_ADMIN_TOKEN: ADMIN, TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DOCS_RATE_LIMIT_ENTERPRISE: '1000000000' };
  // The embedded default as `pnpm start` runs it (services in worker threads) unless TOLLGATE_THREADS=off.
  const config = loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env });
  const system = await startEmbeddedSystem({ config, log: silentLogger(), env, threads: config.TOLLGATE_THREADS === 'on' });
  const dispatcher = new Agent({ connect: { ca: system.gateway.tlsCert } });
  const https = system.gateway.httpsUrl!;
  const call = async (method: string, path: string, token: string, body?: unknown, init: RequestInit = {}) => {
    const res = await undiciFetch(`${https}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), dispatcher, ...init });
    return { status: res.status, body: (await res.json()) as any };
  };
  try {
    const user = await call('POST', '/api/v1/users', ADMIN, { name: 'search bench', email: `search-bench-${Date.now()}@bench.invalid`, level: 'enterprise', permissions: { docs_read: true, docs_write: true, admin: true } });
    if (user.status !== 201) throw new Error(`user create answered ${user.status}: ${JSON.stringify(user.body).slice(0, 200)}`);
    const token = user.body.data.token as string;
    const total = async () => (await call('POST', '/api/v1/search/advanced', token, { query: '', limit: 1 })).body.data.total as number;

    // 1. Bulk import until everything is searchable.
    const t0 = now();
    const c0 = cpuNow();
    let created = 0;
    for (let i = 0; i < corpus.length; i += BULK) {
      const r = await call('POST', '/api/v1/documents/bulk', token, { documents: corpus.slice(i, i + BULK) });
      if (r.status !== 200) throw new Error(`bulk answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      created += r.body.data.created;
    }
    const importedMs = now() - t0;
    for (const until = Date.now() + 180_000; (await total()) < created; ) {
      if (Date.now() > until) throw new Error(`${created - (await total())} of ${created} imported documents were not searchable 3 minutes after the import`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const searchableMs = now() - t0;
    const importCpuMs = cpuNow() - c0;

    // 2. One-word search and suggest at 16 clients, over the imported corpus alone, once the import's after-work is done.
    const settleSeconds = (await quiet(cpuNow)).seconds;
    const word = searchWords[0];
    const search16 = await warmed(`${https}/api/v1/search?q=${encodeURIComponent(word)}`, { headers: { authorization: `Bearer ${token}` }, connections: 16, seconds: LOAD_SECONDS }, 'search');
    const suggest16 = await warmed(`${https}/api/v1/search/suggest?q=${encodeURIComponent(word.slice(0, 2))}`, { headers: { authorization: `Bearer ${token}` }, connections: 16, seconds: LOAD_SECONDS });

    // 3. Single creates at 16 clients (unique titles, so no slug collisions), after the searches: their
    //    warm-up adds thousands of documents.
    const body = JSON.stringify({ title: 'Bench single create [<id>]', content: corpus[0].content, category: 'bench', tags: ['bench'] });
    const creates = await warmed(`${https}/api/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, connections: 16, seconds: LOAD_SECONDS }, 'creates');

    // The creates' indexing and side work finish before the next step is measured.
    const expected = created + creates.warmCreated + (creates.requests - creates.non2xx - creates.errors);
    for (const until = Date.now() + 60_000; Date.now() < until && (await total()) < expected; ) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_000));

    // 4. Create → searchable, one at a time, polled through the gateway.
    const pipeline: number[] = [];
    const pipelineCpu0 = cpuNow();
    for (let i = 0; i < 100; i++) {
      const unique = `pipelineword${i}z${Date.now() % 100000}`;
      const s = now();
      const doc = await call('POST', '/api/v1/documents', token, { title: `Pipeline ${unique}`, content: corpus[i].content });
      for (const until = Date.now() + 30_000; ; ) {
        if (Date.now() > until) throw new Error(`document ${doc.body.data.id} was not searchable 30 s after it was created`);
        const r = await call('GET', `/api/v1/search?q=${unique}&limit=1`, token);
        if (r.body.data.hits.some((h: { id: number }) => h.id === doc.body.data.id)) break;
        await new Promise((res) => setTimeout(res, 2));
      }
      pipeline.push(now() - s);
    }
    const pipelineCpu = (cpuNow() - pipelineCpu0) / pipeline.length;
    const p = stats(pipeline);
    const section = 'search through the gateway (HTTPS, embedded system)';
    const rows: Row[] = [
      { section, setting: `bulk import ${created.toLocaleString('en')} docs → searchable`, throughput: Math.round(created / (searchableMs / 1000)), unit: 'docs/s' },
      { section, setting: 'single creates, 16 clients', throughput: creates.rps, unit: 'req/s', p50Ms: creates.p50, p99Ms: creates.p99, failed: creates.non2xx + creates.errors },
      { section, setting: 'one-word search, 16 clients', throughput: search16.rps, unit: 'req/s', p50Ms: search16.p50, p99Ms: search16.p99, failed: search16.non2xx + search16.errors },
      { section, setting: 'suggest (2 chars), 16 clients', throughput: suggest16.rps, unit: 'req/s', p50Ms: suggest16.p50, p99Ms: suggest16.p99, failed: suggest16.non2xx + suggest16.errors },
      { section, setting: 'create → searchable', throughput: Math.round(1000 / (pipeline.reduce((a, b) => a + b, 0) / pipeline.length)), unit: 'ops/s, sequential', p50Ms: p.p50, p99Ms: p.p99 },
    ];
    const lines = [
      `Whole embedded system (gateway over HTTPS, services over gRPC, embedded PostgreSQL, in-process bus; threads ${config.TOLLGATE_THREADS}):`,
      '',
      `- bulk import: ${created.toLocaleString('en')} documents in ${corpus.length / BULK} requests of ${BULK} took ${(importedMs / 1000).toFixed(1)} s; all searchable after ${(searchableMs / 1000).toFixed(1)} s (CPU of the system process: ${(importCpuMs / 1000).toFixed(1)} s, PostgreSQL not counted); the system was idle again ${settleSeconds.toFixed(0)} s later`,
      `- single creates (POST /api/v1/documents), 16 clients, ${LOAD_SECONDS} s: ${creates.rps} documents/s (p50 ${creates.p50} ms, p99 ${creates.p99} ms, ${creates.non2xx + creates.errors} failed; ${f(creates.cpuMs)} ms CPU per create${coldNote(creates)})`,
      '',
      '| through the gateway (ms) | clients | req/s | p50 | p99 | failed | CPU ms per request | cold CPU ms per request (first warm-up round) |',
      '|---|---|---|---|---|---|---|---|',
      `| search, one word (\`${word}\`) | 16 | ${search16.rps} | ${search16.p50} | ${search16.p99} | ${search16.non2xx + search16.errors} | ${f(search16.cpuMs)} | ${f(search16.warm.cpuPerRequest[0] ?? NaN)} |`,
      `| suggest, 2 characters (\`${word.slice(0, 2)}\`) | 16 | ${suggest16.rps} | ${suggest16.p50} | ${suggest16.p99} | ${suggest16.non2xx + suggest16.errors} | ${f(suggest16.cpuMs)} | ${f(suggest16.warm.cpuPerRequest[0] ?? NaN)} |`,
      `| create → searchable (polled, sequential, n = ${pipeline.length}) | 1 | | ${f(p.p50)} | ${f(p.p99)} | | ${f(pipelineCpu)} (create + polls) | |`,
    ];
    return { lines, rows };
  } finally {
    await system.stop();
    await dispatcher.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
