import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch, type RequestInit } from 'undici';
import { silentLogger } from '@tollgate/kit';
import { loadSystemConfig, startEmbeddedSystem, type EmbeddedSystem } from '@tollgate/system';

export const BENCH_ADMIN_TOKEN = 'tg-bench-admin-token-0123456789abcdef';

/** Limits high enough that the benchmark measures the system, not the rate limiter. */
const UNLIMITED: Record<string, string> = Object.fromEntries(
  ['FREE', 'PRO', 'ENTERPRISE'].flatMap((level) => [
    [`BILLING_RPM_${level}`, '100000000'],
    [`BILLING_CONCURRENCY_${level}`, '100000'],
  ]),
);

export interface BenchSystem {
  system: EmbeddedSystem;
  http: string;
  https: string;
  /** fetch that trusts the gateway's self-signed certificate. */
  fetchTls: (url: string, init?: RequestInit) => ReturnType<typeof undiciFetch>;
  stop(): Promise<void>;
}

/**
 * The embedded default as `pnpm start` runs it (embedded PostgreSQL, each service in a worker thread,
 * the in-process bus served to them) in a fresh temporary data folder. `extraEnv`: e.g. PROVIDERS.
 */
export async function startBenchSystem(extraEnv: Record<string, string> = {}): Promise<BenchSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  chmodSync(dataDir, 0o755); // as root, the embedded PostgreSQL runs as the `postgres` user, who must reach it
  const env = { ...UNLIMITED, DOCS_RATE_LIMIT_ENTERPRISE: '100000000', TOLLGATE_THREADS: process.env.TOLLGATE_THREADS ?? 'on', ...extraEnv, TOLLGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN, TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const config = loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env });
  const system = await startEmbeddedSystem({ config, log: silentLogger(), env, threads: config.TOLLGATE_THREADS === 'on' });
  const dispatcher = new Agent({ connect: { ca: system.gateway.tlsCert } });
  return {
    system,
    http: system.gateway.httpUrl,
    https: system.gateway.httpsUrl!,
    fetchTls: (url, init) => undiciFetch(url, { ...init, dispatcher }),
    stop: async () => {
      await system.stop();
      await dispatcher.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether the gateway serves `method path` (path with concrete values), judged by its RouteBook. */
export function serves(system: EmbeddedSystem, method: string, path: string): boolean {
  return system.gateway.deps.book.routes.some(
    (r) => r.method === method.toLowerCase() && new RegExp(`^${r.path.replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`).test(path),
  );
}
