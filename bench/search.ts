/**
 * Search benchmark: indexing and query latency on 20,000 generated ~2 KB markdown documents.
 * A: the embedded engine in process (build, memory, 1,000 mixed queries, typo recall, suggest).
 * B: the services over gRPC on PostgreSQL (rebuild from the docs service, search latency,
 *    create → searchable latency through outbox, bus and subscription).
 * C: the whole embedded system through the gateway over HTTPS (bench/search-system.ts): bulk
 *    import, single creates and search at 16 clients, create → searchable.
 * BENCH_SEARCH_PARTS=engine,service,system picks parts (default: all when run alone, engine and
 * service from `pnpm bench`). CPU time per query/request is reported beside wall time: on a
 * shared machine it is the robust figure.
 * Writes its results into docs/search.md between the bench markers. Run: pnpm exec tsx bench/search.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { Client } from 'pg';
import { createGrpcClient, createMemoryBus, silentLogger, type ServiceHandle } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { DocsClient } from '@tollgate/protos/docs';
import { SearchClient } from '@tollgate/protos/search';
import { EmbeddedEngine } from '../services/search/src/engine/embedded-engine';
import type { EngineQuery, SearchDoc } from '../services/search/src/engine/types';
import { markdownToText } from '../services/search/src/engine/text';
import { docsService } from '../services/docs/src/service';
import { loadDocsConfig } from '../services/docs/src/config';
import { searchService } from '../services/search/src/service';
import { loadSearchConfig } from '../services/search/src/config';
import type { Row } from './report';
import { systemBench } from './search-system';
import { seededRandom } from '@tollgate/kit/src/testing/seeded-random';

const N = Number(process.env.BENCH_DOCS ?? 20_000);
const QUERIES = 1_000;
const PIPELINE_DOCS = 200;

const rand = seededRandom(42);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
const syllables = ['ka', 'lo', 'mi', 'ra', 'ten', 'vor', 'qui', 'sel', 'dan', 'bru', 'fen', 'gar', 'hol', 'jin', 'mar', 'nos', 'pel', 'ros', 'tur', 'zen'];
const realWords = ['install', 'configure', 'deployment', 'authentication', 'token', 'request', 'limit', 'search', 'index', 'document', 'revision', 'category', 'cluster', 'database', 'migration', 'gateway', 'service', 'network', 'proxy', 'certificate', 'upgrade', 'backup', 'restore', 'monitoring', 'latency', 'throughput', 'permission', 'account', 'billing', 'quota'];
const vocabulary = [...realWords, ...Array.from({ length: 3_000 }, () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(syllables)).join(''))];
const categories = ['guides', 'reference', 'faq', 'howto', 'api', 'ops', 'security', 'release-notes'];
const tagPool = Array.from({ length: 30 }, (_, i) => `tag${i}`);
/** Word frequencies fall off like natural text (roughly Zipf): a few common words, a long tail. */
const word = () => vocabulary[Math.floor(vocabulary.length * rand() ** 2.5)];
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');

function markdown(): string {
  const parts: string[] = [];
  while (parts.join('\n').length < 2_000) {
    const r = rand();
    if (r < 0.15) parts.push(`## ${sentence(3)}`);
    else if (r < 0.3) parts.push(`- ${sentence(6)}\n- ${sentence(5)}`);
    else if (r < 0.38) parts.push('```\n' + sentence(4) + '\n```');
    else parts.push(`${sentence(12)}. ${sentence(10)} **${word()}** [${word()}](https://example.com).`);
  }
  return parts.join('\n\n');
}

interface Generated {
  title: string;
  content: string;
  category: string;
  tags: string[];
  updatedAt: number;
}

export function generate(n: number): Generated[] {
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, () => ({
    title: sentence(3 + Math.floor(rand() * 4)).replace(/^./, (c) => c.toUpperCase()),
    content: markdown(),
    category: pick(categories),
    tags: [...new Set([pick(tagPool), pick(tagPool)])],
    updatedAt: start + Math.floor(rand() * 730) * 86_400_000,
  }));
}

type TypoKind = 'typo: dropped letter' | 'typo: swapped letters';

function typo(w: string): { text: string; kind: TypoKind } {
  const i = 1 + Math.floor(rand() * (w.length - 2));
  return rand() < 0.5 ? { text: w.slice(0, i) + w.slice(i + 1), kind: 'typo: dropped letter' } : { text: w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2), kind: 'typo: swapped letters' };
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const f = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const row = (name: string, ms: number[]) => {
  const st = stats(ms);
  return `| ${name} | ${ms.length} | ${f(st.p50)} | ${f(st.p95)} | ${f(st.p99)} | ${f(st.max)} |`;
};
const now = () => Number(process.hrtime.bigint()) / 1e6;
/** CPU time of this process in ms (user + system): robust on a shared machine where wall time is noisy. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** CPU ms per query: p50, p99 and mean (the robust figures on a shared machine). */
const cpuCols = (xs: number[]) => {
  const st = stats(xs);
  return `${f(st.p50)} | ${f(st.p99)} | ${f(mean(xs))}`;
};
const asRow = (section: string, setting: string, ms: number[]): Row => {
  const st = stats(ms);
  return { section, setting, throughput: Math.round(1000 / st.mean), unit: 'ops/s, sequential', p50Ms: st.p50, p99Ms: st.p99 };
};

type Kind = 'word' | 'two words' | TypoKind | 'prefix' | 'filtered + sorted';

function queries(docs: SearchDoc[]): Array<{ kind: Kind; query: EngineQuery; source?: number }> {
  const base = { categories: [], tags: [], sort: 'relevance' as const, offset: 0, limit: 10 };
  const out: Array<{ kind: Kind; query: EngineQuery; source?: number }> = [];
  for (let i = 0; i < QUERIES; i++) {
    const doc = pick(docs);
    const words = doc.title.toLowerCase().split(' ');
    const r = rand();
    if (r < 0.35) out.push({ kind: 'word', query: { ...base, q: pick(words) } });
    else if (r < 0.55) out.push({ kind: 'two words', query: { ...base, q: words.slice(0, 2).join(' ') } });
    else if (r < 0.75) {
      const long = words.filter((w) => w.length >= 6);
      if (long.length === 0) {
        i--;
        continue;
      }
      const t = typo(pick(long));
      out.push({ kind: t.kind, query: { ...base, q: t.text }, source: doc.id });
    } else if (r < 0.9) {
      const w = pick(words);
      out.push({ kind: 'prefix', query: { ...base, q: w.slice(0, Math.max(3, Math.ceil(w.length * 0.6))) } });
    } else out.push({ kind: 'filtered + sorted', query: { ...base, q: pick(words), categories: [doc.category], tags: [doc.tags[0]], sort: 'updated_desc', updatedFrom: Date.UTC(2024, 0, 1), updatedTo: Date.UTC(2025, 11, 31) } });
  }
  return out;
}

async function engineBench(corpus: Generated[]): Promise<{ lines: string[]; rows: Row[] }> {
  const docs: SearchDoc[] = corpus.map((g, i) => ({ id: i + 1, slug: `doc-${i + 1}`, title: g.title, text: markdownToText(g.content), category: g.category, tags: g.tags, authorAccountId: 1, createdAt: g.updatedAt, updatedAt: g.updatedAt }));
  // Memory is read after a full collection: without --expose-gc the heap still holds the build's garbage.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const rss0 = process.memoryUsage().rss;
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const held0 = held();
  const engine = new EmbeddedEngine();
  const t0 = now();
  for (let i = 0; i < docs.length; i += 1_000) await engine.upsert(docs.slice(i, i + 1_000));
  const buildMs = now() - t0;
  gc();
  const rssMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
  const heldMb = (held() - held0) / 2 ** 20;
  const textMb = docs.reduce((a, d) => a + d.text.length + d.title.length, 0) / 2 ** 20;

  const qs = queries(docs);
  const byKind = new Map<Kind, number[]>();
  const cpuByKind = new Map<Kind, number[]>();
  const recall = new Map<TypoKind, { found: number; total: number }>();
  for (const { kind, query, source } of qs) {
    const c = cpuNow();
    const s = now();
    const res = await engine.search(query);
    const ms = now() - s;
    byKind.set(kind, [...(byKind.get(kind) ?? []), ms]);
    cpuByKind.set(kind, [...(cpuByKind.get(kind) ?? []), cpuNow() - c]);
    if (source !== undefined) {
      const r = recall.get(kind as TypoKind) ?? { found: 0, total: 0 };
      r.total++;
      if (res.hits.some((h) => h.id === source) || (res.total > 0 && (await engine.search({ ...query, limit: 10_000 })).hits.some((h) => h.id === source))) r.found++;
      recall.set(kind as TypoKind, r);
    }
  }
  const suggestMs: number[] = [];
  const suggestCpu: number[] = [];
  const suggestFirstMs: number[] = [];
  const suggestFirstCpu: number[] = [];
  for (let i = 0; i < 300; i++) {
    const w = pick(pick(docs).title.toLowerCase().split(' '));
    const c = cpuNow();
    const s = now();
    await engine.suggest(w.slice(0, 2 + Math.floor(rand() * Math.max(1, w.length - 2))), 8);
    suggestMs.push(now() - s);
    suggestCpu.push(cpuNow() - c);
  }
  for (let i = 0; i < 300; i++) {
    const w = pick(pick(docs).title.toLowerCase().split(' '));
    const c = cpuNow();
    const s = now();
    await engine.suggest(w.slice(0, 1), 8);
    suggestFirstMs.push(now() - s);
    suggestFirstCpu.push(cpuNow() - c);
  }
  const all = [...byKind.values()].flat();
  const section = `search, embedded engine (${docs.length.toLocaleString('en')} docs)`;
  const rows: Row[] = [
    { section, setting: 'index build', throughput: Math.round(docs.length / (buildMs / 1000)), unit: 'docs/s' },
    asRow(section, 'mixed queries', all),
    asRow(section, 'suggest', suggestMs),
  ];
  const lines = [
    `Embedded engine (own inverted index) in process, ${docs.length.toLocaleString('en')} documents (${f(docs.reduce((a, d) => a + d.text.length, 0) / docs.length / 1024)} KB of text each on average):`,
    '',
    `- build: ${(buildMs / 1000).toFixed(1)} s (${Math.round(docs.length / (buildMs / 1000)).toLocaleString('en')} documents/s), memory held by the index ≈ ${Math.round(heldMb)} MB (V8 heap + typed arrays, after GC) plus the ${Math.round(textMb)} MB of document text it keeps (RSS grew ${Math.round(rssMb)} MB)`,
    ...[...recall.entries()].map(([k, r]) => `- ${k} (one word of 6+ letters from a title): the source document was among the results for ${r.found} of ${r.total}`),
    '',
    '| queries | n | wall p50 | wall p95 | wall p99 | wall max | CPU p50 | CPU p99 | CPU mean |',
    '|---|---|---|---|---|---|---|---|---|',
    `${row('all mixed', all)} ${cpuCols([...cpuByKind.values()].flat())} |`,
    ...[...byKind.entries()].map(([k, v]) => `${row(k, v)} ${cpuCols(cpuByKind.get(k)!)} |`),
    `${row('suggest (2+ chars typed)', suggestMs)} ${cpuCols(suggestCpu)} |`,
    `${row('suggest (1 char typed)', suggestFirstMs)} ${cpuCols(suggestFirstCpu)} |`,
  ];
  return { lines, rows };
}

async function serviceBench(corpus: Generated[]): Promise<{ lines: string[]; rows: Row[] }> {
  const docsUrl = await createTestDatabase('bench_docs');
  const searchUrl = await createTestDatabase('bench_search');
  if (!docsUrl || !searchUrl) return { lines: ['(skipped: no PostgreSQL)'], rows: [] };
  const bus = createMemoryBus();
  const log = silentLogger();
  const handles: ServiceHandle[] = [];
  try {
    const docsHandle = await docsService.start(loadDocsConfig({ DATABASE_URL: docsUrl, GRPC_PORT: '0' }), { bus, log });
    handles.push(docsHandle);
    const pg = new Client({ connectionString: docsUrl });
    await pg.connect();
    const t0 = now();
    for (let i = 0; i < corpus.length; i += 1_000) {
      const chunk = corpus.slice(i, i + 1_000);
      await pg.query(
        `INSERT INTO documents (slug, title, content, category, tags, author_account_id, status, version, created_at, updated_at)
         SELECT 'bench-' || s, t, c, cat, string_to_array(tg, ','), 1, 'published', 1, to_timestamp(u / 1000.0), to_timestamp(u / 1000.0)
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS x(s, t, c, cat, tg, u)`,
        [chunk.map((_, j) => i + j), chunk.map((g) => g.title), chunk.map((g) => g.content), chunk.map((g) => g.category), chunk.map((g) => g.tags.join(',')), chunk.map((g) => g.updatedAt)],
      );
    }
    const seedMs = now() - t0;
    await pg.end();

    const searchHandle = await searchService.start(loadSearchConfig({ DATABASE_URL: searchUrl, GRPC_PORT: '0', DOCS_GRPC_ADDR: docsHandle.address }), { bus, log });
    handles.push(searchHandle);
    const search = createGrpcClient(SearchClient, searchHandle.address, { timeoutMs: 600_000 });
    const docs = createGrpcClient(DocsClient, docsHandle.address);
    while (!(await search.status({})).ready) await new Promise((r) => setTimeout(r, 100));
    const rebuild = await search.rebuild({});

    const actor = { accountId: 1, isAdmin: false, apiKeyId: 0 };
    const grpcMs: number[] = [];
    for (let i = 0; i < 500; i++) {
      const q = pick(pick(corpus).title.toLowerCase().split(' '));
      const s = now();
      await search.search({ actor, q, page: { page: 1, pageSize: 10 } });
      grpcMs.push(now() - s);
    }

    const pipelineMs: number[] = [];
    for (let i = 0; i < PIPELINE_DOCS; i++) {
      const word = `pipelineword${i}x`;
      const s = now();
      const doc = await docs.createDocument({ actor, title: `Pipeline ${word}`, content: markdown(), category: 'bench', tags: [], status: '', slug: '' });
      for (;;) {
        const found = (await search.search({ actor, q: word, page: { page: 1, pageSize: 1 } })).hits.some((h) => h.id === doc.id);
        if (found) break;
        await new Promise((res) => setTimeout(res, 2));
      }
      pipelineMs.push(now() - s);
    }
    search.close();
    docs.close();
    const section = 'search service over gRPC';
    const rows: Row[] = [asRow(section, 'one-word search', grpcMs), asRow(section, 'create → searchable', pipelineMs)];
    const lines = [
      `Services over gRPC on PostgreSQL 15 (docs + search, in-process bus, embedded engine):`,
      '',
      `- seeding ${corpus.length.toLocaleString('en')} documents into the docs database with SQL: ${(seedMs / 1000).toFixed(1)} s (outside the API, to keep the run short)`,
      `- full rebuild (StreamAllDocuments → markdown to text → index): ${rebuild.indexed.toLocaleString('en')} documents in ${(rebuild.tookMs / 1000).toFixed(1)} s`,
      '',
      '| over gRPC (ms) | n | p50 | p95 | p99 | max |',
      '|---|---|---|---|---|---|',
      row('search, one word (incl. analytics write)', grpcMs),
      row('create → searchable (outbox, bus, index; polled)', pipelineMs),
    ];
    return { lines, rows };
  } finally {
    for (const h of handles.reverse()) await h.stop();
    await bus.close();
    await dropTestDatabase(docsUrl);
    await dropTestDatabase(searchUrl);
    await releaseTestPostgres();
  }
}

/** Title words in a mid frequency band (in roughly 1–5 % of titles): a typical one-word search. */
export function titleWords(corpus: Generated[]): string[] {
  const count = new Map<string, number>();
  for (const g of corpus) for (const w of new Set(g.title.toLowerCase().split(' '))) count.set(w, (count.get(w) ?? 0) + 1);
  const band = [...count].filter(([, n]) => n >= corpus.length / 100 && n <= corpus.length / 20).sort((x, y) => y[1] - x[1]);
  return band.length > 0 ? band.map(([w]) => w) : [...count.keys()];
}

function writeResults(lines: string[]): void {
  const path = join(__dirname, '..', 'docs', 'search.md');
  const doc = readFileSync(path, 'utf8');
  const start = '<!-- bench:search:start -->';
  const end = '<!-- bench:search:end -->';
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`docs/search.md lacks the ${start} … ${end} markers`);
  writeFileSync(path, `${doc.slice(0, i + start.length)}\n${lines.join('\n')}\n${doc.slice(j)}`);
}

/** Runs both parts, writes their results into docs/search.md and returns table rows for `pnpm bench`. */
export async function runSearchBench(): Promise<{ rows: Row[] }> {
  const corpus = generate(N);
  const header = [`Measured ${new Date().toISOString().slice(0, 10)} by \`pnpm exec tsx bench/search.ts\` (Node ${process.version}, ${require('node:os').cpus().length} cores).`, ''];
  // Run alone: every part. Inside `pnpm bench` (which already runs a system): engine and services only.
  const parts = (process.env.BENCH_SEARCH_PARTS ?? (require.main === module ? 'engine,service,system' : 'engine,service')).split(',');
  const a = parts.includes('engine') ? await engineBench(corpus) : { lines: [], rows: [] };
  console.log(a.lines.join('\n'));
  const b = parts.includes('service') ? await serviceBench(corpus) : { lines: [], rows: [] };
  console.log(b.lines.join('\n'));
  const c = parts.includes('system') ? await systemBench(corpus.map(({ title, content, category, tags }) => ({ title, content, category, tags })), titleWords(corpus)) : { lines: [], rows: [] };
  console.log(c.lines.join('\n'));
  // docs/search.md keeps the figures of a complete run only.
  if (['engine', 'service', 'system'].every((p) => parts.includes(p))) writeResults([...header, ...a.lines, '', ...b.lines, '', ...c.lines]);
  return { rows: [...a.rows, ...b.rows, ...c.rows] };
}

if (require.main === module) {
  runSearchBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
