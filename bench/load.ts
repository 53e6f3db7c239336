import { spawn } from 'node:child_process';

/** The chat body every execution load sends. */
export const CHAT_BODY = JSON.stringify({ messages: [{ role: 'user', content: 'hello from the benchmark' }] });

export interface LoadResult {
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

const autocannonCli = require.resolve('autocannon/autocannon.js');

/**
 * Runs autocannon in a child process (so the load generator does not share the event loop of the
 * system under test) and returns its summary.
 */
export function runLoad(spec: LoadSpec, onSecond?: () => void): Promise<LoadResult> {
  const args = [autocannonCli, '--json', '--timeout', '60', '--connections', String(spec.connections), '--duration', String(spec.seconds), '--method', spec.method ?? 'GET'];
  for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('--headers', `${k}=${v}`);
  if (spec.body !== undefined) args.push('--body', spec.body);
  args.push(spec.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const ticker = onSecond ? setInterval(onSecond, 1_000) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      if (ticker) clearInterval(ticker);
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err.trim()}`));
      const r = JSON.parse(out) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; duration: number };
      resolve({
        connections: spec.connections,
        seconds: r.duration,
        requestsPerSecond: Math.round(r.requests.total / r.duration),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    });
  });
}
