import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { ServiceName } from '@tollgate/kit';

/** The repository root, and each process's entry point (distributed mode). */
export const ROOT = resolve(__dirname, '..', '..');
export const ENTRY: Record<ServiceName | 'gateway', string> = {
  keys: 'services/keys/src/main.ts',
  billing: 'services/billing/src/main.ts',
  tasks: 'services/tasks/src/main.ts',
  docs: 'services/docs/src/main.ts',
  search: 'services/search/src/main.ts',
  gateway: 'gateway/src/main.ts',
};

/**
 * Processes of a distributed-mode test, each node itself with tsx's loader (not the tsx CLI, whose
 * inner node process would survive a kill), configured only by environment variables.
 */
export class ProcessGroup {
  private readonly children = new Map<string, ChildProcess>();
  private readonly envs = new Map<string, Record<string, string>>();
  readonly output = new Map<string, string>();

  start(name: keyof typeof ENTRY, env: Record<string, string>): void {
    this.envs.set(name, env);
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[name]], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.output.set(name, '');
    const keep = (chunk: Buffer) => this.output.set(name, (this.output.get(name)! + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.set(name, child);
  }

  /** kill -9, and wait until the process is gone. */
  async kill(name: string): Promise<void> {
    const child = this.children.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }

  /** Starts the process again with the environment it had. */
  restart(name: keyof typeof ENTRY): void {
    this.start(name, this.envs.get(name)!);
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.children.keys()].map((n) => this.kill(n)));
  }

  tail(chars = 3_000): string {
    return [...this.output].map(([n, o]) => `--- ${n}\n${o.slice(-chars)}`).join('\n');
  }
}

export async function poll(check: () => Promise<boolean>, deadlineMs: number, everyMs = 200): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}
