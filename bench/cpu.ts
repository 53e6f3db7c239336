import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from /proc, in ms. Tollgate runs inside the bench process (the gateway on the main
 * thread, each service in its worker thread): its CPU is this process's utime+stime, which covers
 * every thread. The load generator (autocannon) and the fake upstream are separate processes and are
 * not counted. PostgreSQL's backends call setsid, so they are found by walking the process tree by
 * ppid from the postmaster (a child of this process); backends that ended are in the postmaster's
 * cutime+cstime.
 */
const TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux (getconf CLK_TCK)

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
}

function stat(pid: number | 'self'): Stat | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = raw.lastIndexOf(')');
  const comm = raw.slice(raw.indexOf('(') + 1, close);
  const f = raw.slice(close + 2).split(' '); // f[0] = state (field 3)
  return { pid: Number(raw.slice(0, raw.indexOf(' '))), comm, ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), cutime: Number(f[13]), cstime: Number(f[14]) };
}

function allStats(): Stat[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => stat(Number(d)))
    .filter((s): s is Stat => s !== undefined);
}

/** The embedded PostgreSQL's postmaster: a `postgres` child of this process. */
export function findPostmaster(): number | undefined {
  return allStats().find((s) => s.ppid === process.pid && s.comm === 'postgres')?.pid;
}

export function tollgateCpuMs(): number {
  return processCpuMs('self');
}

/** utime + stime of one process (every thread), in ms; 0 once it is gone. */
export function processCpuMs(pid: number | 'self'): number {
  const s = stat(pid);
  return s ? (s.utime + s.stime) * TICK_MS : 0;
}

export function postgresCpuMs(postmaster: number | undefined): number {
  if (postmaster === undefined) return 0;
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const root = stats.find((s) => s.pid === postmaster);
  if (!root) return 0;
  let ticks = root.utime + root.stime + root.cutime + root.cstime;
  const queue = [...(children.get(postmaster) ?? [])];
  while (queue.length) {
    const s = queue.pop()!;
    ticks += s.utime + s.stime;
    queue.push(...(children.get(s.pid) ?? []));
  }
  return ticks * TICK_MS;
}

/** CPU of this process's main thread (the gateway and the bus) alone; the rest of tollgateCpuMs is the other threads'. */
export function mainThreadCpuMs(): number {
  const s = stat(`${process.pid}/task/${process.pid}` as unknown as number);
  return s ? (s.utime + s.stime) * TICK_MS : 0;
}

export interface CpuSpent {
  tollgateMs: number;
  postgresMs: number;
  /** Of tollgateMs, the main thread's (gateway, bus); the rest ran in the services' threads. */
  mainThreadMs: number;
}

/** Runs `work` and returns its result with the CPU Tollgate and PostgreSQL spent meanwhile. */
export async function measureCpu<T>(postmaster: number | undefined, work: () => Promise<T>): Promise<{ result: T; cpu: CpuSpent }> {
  const t0 = tollgateCpuMs();
  const m0 = mainThreadCpuMs();
  const p0 = postgresCpuMs(postmaster);
  const result = await work();
  return { result, cpu: { tollgateMs: tollgateCpuMs() - t0, postgresMs: postgresCpuMs(postmaster) - p0, mainThreadMs: mainThreadCpuMs() - m0 } };
}
