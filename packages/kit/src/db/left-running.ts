import fs from 'node:fs';
import path from 'node:path';
import type { DbLogger } from './logger';

/** Next to the cluster folder: the pid of the process that started its server (the server's parent while that process lives). */
export const ownerFileFor = (dataDir: string) => path.join(path.dirname(dataDir), `${path.basename(dataDir)}-owner`);

const STOP_WAIT_MS = 60_000;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The server of `dataDir` still running (its postmaster.pid names a live postgres of this folder) and its parent; undefined otherwise or where /proc is missing. */
function runningServer(dataDir: string): { pid: number; parent: number } | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  try {
    // A stale lock file's pid may belong to another program by now: only a postgres serving this folder counts.
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!args.some((a) => a.endsWith('postgres')) || !args.includes(dataDir)) return undefined;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { pid, parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) };
  } catch {
    return undefined;
  }
}

function recordedOwner(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(ownerFileFor(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function exited(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/**
 * The server runs in its own process group, so it outlives a Tollgate process that is killed
 * (kill -9, the OOM killer) and would hold the folder's lock at the next start. Such a server, whose
 * parent is no longer the process that started it, is shut down (fast shutdown: nothing committed is
 * lost); a server that a live process still runs is left alone and the start is refused, naming it.
 */
export async function stopServerLeftRunning(dataDir: string, logger?: DbLogger): Promise<void> {
  const server = runningServer(dataDir);
  if (!server) return;
  const owner = recordedOwner(dataDir);
  const ownedByLiveProcess = owner !== undefined ? server.parent === owner : server.parent !== 1;
  if (ownedByLiveProcess) {
    throw new Error(`the embedded PostgreSQL of ${dataDir} is in use by process ${server.parent}; stop it first or give this instance its own TOLLGATE_DATA_DIR`);
  }
  logger?.warn({ dataDir, pid: server.pid }, 'stopping the embedded PostgreSQL that a stopped Tollgate process left running');
  process.kill(server.pid, 'SIGINT');
  if (await exited(server.pid, STOP_WAIT_MS)) return;
  // Immediate shutdown: the next start recovers from the write-ahead log.
  process.kill(server.pid, 'SIGQUIT');
  if (!(await exited(server.pid, 10_000))) throw new Error(`the embedded PostgreSQL left running in ${dataDir} (pid ${server.pid}) did not stop`);
}
