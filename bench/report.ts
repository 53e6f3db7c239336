import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, platform, release } from 'node:os';
import { dirname } from 'node:path';

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export interface Row {
  section: string;
  setting: string;
  throughput: number;
  unit: string;
  p50Ms?: number;
  p99Ms?: number;
  failed?: number;
  note?: string;
  /** CPU per request (or per row/task): Tollgate's process (every thread) and PostgreSQL's (every backend). */
  tollgateCpuMs?: number;
  postgresCpuMs?: number;
  /** Tollgate CPU per request of the first warm-up round (the JIT still optimising the path); see bench/warm-up.ts. */
  coldCpuMs?: number;
  /** Seconds of warm-up before the measured run, and whether the CPU per request had settled by then. */
  warmUp?: { seconds: number; settled: boolean };
}

export interface Section {
  name: string;
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  rows: Row[];
  raw?: unknown;
}

export function machine(postgres: string, loadAtStart: number[]) {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${platform()} ${release()}`,
    postgres,
    /** 1-minute load average before and after: other work on the machine shows here. */
    loadAverage1m: { start: round2(loadAtStart[0]), end: round2(loadavg()[0]) },
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
/** The first warm-up round's CPU per request, marked when the warm-up ran out before the cost settled. */
const cold = (r: Row) => (r.coldCpuMs === undefined ? '' : `${r.coldCpuMs.toFixed(2)}${r.warmUp && !r.warmUp.settled ? ' (not settled)' : ''}`);
const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '' : Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(digits));

/** The results as a fixed-width table: CPU per request, and throughput as a share of the same run's PostgreSQL single-row INSERT rates. */
export function table(sections: Section[], inserts: { one?: number; sixteen?: number }): string {
  const header = ['section', 'setting', 'throughput', 'p50 ms', 'p99 ms', 'failed', 'Tollgate CPU ms/req', 'PG CPU ms/req', '% of INSERT/s (1 cl.)', '% of INSERT/s (16 cl.)', 'cold CPU ms/req'];
  const pct = (n: number, base?: number) => (base ? ((100 * n) / base).toFixed(1) : '');
  const rows: string[][] = sections.flatMap((s) =>
    s.status !== 'ok'
      ? [[s.name, `${s.status.toUpperCase()}: ${s.reason ?? ''}`, '', '', '', '', '', '', '', '', '']]
      : s.rows.map((r) => [
          r.section,
          r.setting,
          `${fmt(r.throughput)} ${r.unit}`,
          fmt(r.p50Ms),
          fmt(r.p99Ms),
          r.failed === undefined ? '' : fmt(r.failed),
          r.tollgateCpuMs === undefined ? '' : r.tollgateCpuMs.toFixed(2),
          r.postgresCpuMs === undefined ? '' : r.postgresCpuMs.toFixed(2),
          r.unit === 'req/s' || r.unit === 'tasks/s' ? pct(r.throughput, inserts.one) : '',
          r.unit === 'req/s' || r.unit === 'tasks/s' ? pct(r.throughput, inserts.sixteen) : '',
          cold(r),
        ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 1 && r[2] === '' ? 0 : r[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 2 ? lpad(c, widths[i]) : pad(c, widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => (r[2] === '' && r[1].includes(':') ? `${pad(r[0], widths[0])}  ${r[1]}` : line(r)))].join('\n');
}

/** The same rows as a Markdown table (docs/benchmarks.md). */
export function markdown(sections: Section[], inserts: { one?: number; sixteen?: number }): string {
  const pct = (n: number, base?: number) => (base ? ((100 * n) / base).toFixed(1) : '');
  const lines = ['| section | setting | throughput | p50 ms | p99 ms | Tollgate CPU ms/req | PG CPU ms/req | % INSERT/s 1 cl. | % INSERT/s 16 cl. | cold CPU ms/req |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const s of sections) {
    if (s.status !== 'ok') {
      lines.push(`| ${s.name} | ${s.status}: ${s.reason ?? ''} | | | | | | | | |`);
      continue;
    }
    for (const r of s.rows) {
      const share = r.unit === 'req/s' || r.unit === 'tasks/s';
      lines.push(`| ${r.section} | ${r.setting} | ${fmt(r.throughput)} ${r.unit} | ${fmt(r.p50Ms)} | ${fmt(r.p99Ms)} | ${r.tollgateCpuMs?.toFixed(2) ?? ''} | ${r.postgresCpuMs?.toFixed(2) ?? ''} | ${share ? pct(r.throughput, inserts.one) : ''} | ${share ? pct(r.throughput, inserts.sixteen) : ''} | ${cold(r)} |`);
    }
  }
  return lines.join('\n');
}

export function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(data, null, 2) + '\n');
}
