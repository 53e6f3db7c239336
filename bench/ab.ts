/**
 * Two checkouts compared on one noisy host: both systems run side by side (each in its own process,
 * with its own embedded PostgreSQL) and the same autocannon load alternates between them in short
 * rounds (A B, B A, ...), so the host's drift falls on both alike. Prints, per side, the median
 * req/s, p50, p99 and CPU per request (Tollgate's process, PostgreSQL's tree), and the median of
 * the per-round ratios B/A. Run it on two copies of the same checkout first: the spread of that
 * A/A comparison is the noise floor.
 *
 *   pnpm exec tsx bench/ab.ts <checkout A> <checkout B> [path] [clients] [rounds] [seconds]
 *   (default: POST /v1/agent/demo-agent/sync, 16 clients, 10 rounds of 5 s, after 8 s of warm-up each)
 */
import { startAbServer, type AbServer } from './ab-side';
import { postgresCpuMs, processCpuMs } from './cpu';
import { CHAT_BODY, runLoad } from './load';
import { median } from './report';

const [dirA, dirB, path = '/v1/agent/demo-agent/sync', clients = '16', rounds = '10', seconds = '5'] = process.argv.slice(2);
const WARMUP_SECONDS = 8;

interface Side extends AbServer {
  runs: Array<{ rps: number; p50: number; p99: number; cpu: number; pg: number }>;
}

const start = async (name: 'A' | 'B', checkout: string): Promise<Side> => ({ ...(await startAbServer(name, checkout)), runs: [] });

async function load(side: Side, secs: number, record: boolean): Promise<void> {
  const cpu0 = processCpuMs(side.pid);
  const pg0 = postgresCpuMs(side.postmaster);
  const r = await runLoad({
    url: `${side.http}${path}`,
    method: 'POST',
    headers: { authorization: `Bearer ${side.apiKey}`, 'content-type': 'application/json' },
    body: CHAT_BODY,
    connections: Number(clients),
    seconds: secs,
  });
  if (r.non2xx + r.errors > 0) process.stderr.write(`${side.name}: ${r.non2xx + r.errors} failed requests\n`);
  if (record) side.runs.push({ rps: r.requestsPerSecond, p50: r.p50Ms, p99: r.p99Ms, cpu: (processCpuMs(side.pid) - cpu0) / r.requests, pg: (postgresCpuMs(side.postmaster) - pg0) / r.requests });
}

async function main(): Promise<void> {
  if (!dirA || !dirB) throw new Error('usage: tsx bench/ab.ts <checkout A> <checkout B> [path] [clients] [rounds] [seconds]');
  const [a, b] = await Promise.all([start('A', dirA), start('B', dirB)]);
  try {
    await load(a, WARMUP_SECONDS, false);
    await load(b, WARMUP_SECONDS, false);
    for (let i = 0; i < Number(rounds); i++) {
      for (const side of i % 2 === 0 ? [a, b] : [b, a]) await load(side, Number(seconds), true);
    }
    for (const s of [a, b]) {
      const m = (k: 'rps' | 'p50' | 'p99' | 'cpu' | 'pg') => median(s.runs.map((r) => r[k]));
      console.log(`${s.name}: ${m('rps')} req/s, p50 ${m('p50')} ms, p99 ${m('p99')} ms, Tollgate ${m('cpu').toFixed(2)} ms/req, PostgreSQL ${m('pg').toFixed(2)} ms/req`);
    }
    const ratios = (k: 'cpu' | 'pg') => a.runs.map((r, i) => b.runs[i][k] / r[k]);
    console.log(`B/A Tollgate CPU per round: ${ratios('cpu').map((x) => x.toFixed(3)).join(' ')} (median ${median(ratios('cpu')).toFixed(3)})`);
    console.log(`B/A PostgreSQL CPU per round: median ${median(ratios('pg')).toFixed(3)}`);
  } finally {
    a.child.stdin!.end();
    b.child.stdin!.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
