import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** One checkout's embedded system, run by `bench/ab-serve.ts` in its own process for an A/B comparison. */
export interface AbServer {
  name: 'A' | 'B';
  http: string;
  apiKey: string;
  pid: number;
  postmaster: number;
  /** Closing its stdin stops the system. */
  child: ChildProcess;
}

/** Starts `checkout`'s system (through that checkout's own bench code); resolves once it serves, with its bench account's key. */
export function startAbServer(name: 'A' | 'B', checkout: string): Promise<AbServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'ab-serve.ts'), checkout], { cwd: checkout, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ name, ...(JSON.parse(out.split('\n')[0]) as Omit<AbServer, 'name' | 'child'>), child });
    });
    child.on('exit', (code) => reject(new Error(`${name} (${checkout}) exited ${code}`)));
  });
}
