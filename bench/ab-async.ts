/**
 * Two checkouts compared on the whole life of async tasks: both embedded systems run side by side
 * (`bench/ab-serve.ts`, as for `bench/ab.ts`) and, in alternating rounds (A B, B A, ...), each
 * gets `count` submissions at 16 clients; the round lasts until that system is idle again, its
 * workers having finished every task. CPU per task therefore covers the submission, the claim, the
 * run, the final state, the settlement and the events, wherever they fell. Prints each round, each
 * side's medians and the medians of the per-round ratios B/A.
 *
 *   pnpm exec tsx bench/ab-async.ts <checkout A> <checkout B> [count] [rounds]
 *   (default: 3000 submissions, 6 rounds each, after one unmeasured round each)
 */
import autocannon from 'autocannon';
import { startAbServer, type AbServer } from './ab-side';
import { postgresCpuMs, processCpuMs } from './cpu';
import { CHAT_BODY } from './load';
import { median } from './report';
import { quiet } from './warm-up';

const [dirA, dirB, count = '3000', rounds = '6'] = process.argv.slice(2);
const PATH = '/v1/agent/demo-agent/async';

interface Side extends AbServer {
  tollgate: number[];
  postgres: number[];
  submissions: number[];
}

const start = async (name: 'A' | 'B', checkout: string): Promise<Side> => ({ ...(await startAbServer(name, checkout)), tollgate: [], postgres: [], submissions: [] });

const cpuOf = (s: Side) => processCpuMs(s.pid) + postgresCpuMs(s.postmaster);

function submit(s: Side, amount: number): Promise<void> {
  const headers = { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' };
  return new Promise((resolve, reject) =>
    autocannon({ url: `${s.http}${PATH}`, method: 'POST', connections: 16, amount, headers, body: CHAT_BODY }, (err, r) => {
      if (err) return reject(err);
      if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${s.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`));
      resolve();
    }),
  );
}

async function round(s: Side, both: Side[], amount: number): Promise<void> {
  await quiet(() => both.reduce((sum, x) => sum + cpuOf(x), 0), { threshold: 0.15, maxSeconds: 90 });
  const tollgate = processCpuMs(s.pid);
  const postgres = postgresCpuMs(s.postmaster);
  const t0 = performance.now();
  await submit(s, amount);
  const seconds = (performance.now() - t0) / 1000;
  await quiet(() => cpuOf(s), { threshold: 0.15, maxSeconds: 120 });
  s.tollgate.push((processCpuMs(s.pid) - tollgate) / amount);
  s.postgres.push((postgresCpuMs(s.postmaster) - postgres) / amount);
  s.submissions.push(amount / seconds);
}

const ratio = (a: number[], b: number[]) => median(a.map((x, i) => b[i] / x)).toFixed(3);

async function main(): Promise<void> {
  if (!dirA || !dirB) throw new Error('usage: ab-async.ts <checkout A> <checkout B> [count] [rounds]');
  const a = await start('A', dirA);
  const b = await start('B', dirB);
  const amount = Number(count);
  try {
    for (const s of [a, b]) {
      await round(s, [a, b], amount);
      s.tollgate.length = s.postgres.length = s.submissions.length = 0;
    }
    for (let r = 0; r < Number(rounds); r++) {
      for (const s of r % 2 ? [b, a] : [a, b]) await round(s, [a, b], amount);
      const line = (s: Side) => `${s.name} ${s.tollgate.at(-1)!.toFixed(2)} + ${s.postgres.at(-1)!.toFixed(2)} ms/task, ${s.submissions.at(-1)!.toFixed(0)} submissions/s`;
      process.stdout.write(`round ${r + 1}: ${line(a)} | ${line(b)}\n`);
    }
    for (const s of [a, b]) {
      process.stdout.write(`${s.name}: Tollgate ${median(s.tollgate).toFixed(2)} ms/task, PostgreSQL ${median(s.postgres).toFixed(2)} ms/task, ${median(s.submissions).toFixed(0)} submissions/s\n`);
    }
    process.stdout.write(`B/A per round, median: Tollgate CPU ${ratio(a.tollgate, b.tollgate)}, PostgreSQL CPU ${ratio(a.postgres, b.postgres)}, submissions/s ${ratio(a.submissions, b.submissions)}\n`);
  } finally {
    for (const s of [a, b]) s.child.stdin!.end();
  }
}

main().then(
  () => setTimeout(() => process.exit(0), 5_000),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
