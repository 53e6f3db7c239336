import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { SERVICE_NAMES, type ServiceName } from '@tollgate/kit';
import { findFreePort } from '@tollgate/kit/src/db/free-port';
import { natsUrlForTests, warnNatsSkipped } from '@tollgate/kit/src/testing/nats';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { ENTRY, ROOT } from './processes';

export const DIST_ADMIN_TOKEN = 'distributed-admin-token-0123456789abcdef';

export interface Distributed {
  gateway: string;
  gatewayHttps: string;
  dataDir: string;
  databases: Record<ServiceName, string>;
  /** kill -9 of one process. */
  kill(name: ServiceName | 'gateway'): Promise<void>;
  /** Starts a stopped process again with its environment. */
  restart(name: ServiceName | 'gateway'): void;
  waitReady(url: string, deadlineMs: number): Promise<boolean>;
  sql<T extends pg.QueryResultRow>(service: ServiceName, text: string, values?: unknown[]): Promise<T[]>;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * The distributed mode for a test: every service and the gateway in its own process, configured
 * only by environment variables (`serviceEnv` added to each), gRPC over TCP, NATS JetStream.
 * Null (after a warning) without NATS or PostgreSQL.
 */
export async function startDistributed(serviceEnv: Partial<Record<ServiceName | 'gateway', Record<string, string>>> = {}): Promise<Distributed | null> {
  const natsUrl = await natsUrlForTests();
  if (!natsUrl) {
    warnNatsSkipped('distributed mode');
    return null;
  }
  const children = new Map<string, ChildProcess>();
  const envs = new Map<string, Record<string, string>>();
  const output = new Map<string, string>();
  const start = (name: ServiceName | 'gateway') => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[name]], { cwd: ROOT, env: { PATH: process.env.PATH, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...envs.get(name) }, stdio: ['ignore', 'pipe', 'pipe'] });
    output.set(name, output.get(name) ?? '');
    const keep = (chunk: Buffer) => output.set(name, (output.get(name)! + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.set(name, child);
  };
  const prefix = `disthp${Date.now().toString(36)}`;
  const addresses: Record<string, string> = {};
  const ports: Record<string, number> = {};
  const databases = {} as Record<ServiceName, string>;
  for (const name of SERVICE_NAMES) {
    ports[name] = await findFreePort();
    addresses[`${name.toUpperCase()}_GRPC_ADDR`] = `127.0.0.1:${ports[name]}`;
  }
  for (const name of SERVICE_NAMES) {
    const url = await createTestDatabase(`disthp_${name}`);
    if (!url) return null;
    databases[name] = url;
    envs.set(name, { ...addresses, DATABASE_URL: url, GRPC_PORT: String(ports[name]), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_ADMIN_TOKEN: DIST_ADMIN_TOKEN, TOLLGATE_DATA_DIR: tmpdir(), ...serviceEnv[name] });
    start(name);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-disthp-'));
  chmodSync(dataDir, 0o755);
  const [port, httpsPort] = [await findFreePort(), await findFreePort()];
  envs.set('gateway', { ...addresses, PORT: String(port), HTTPS_PORT: String(httpsPort), NATS_URL: natsUrl, NATS_PREFIX: prefix, TOLLGATE_DATA_DIR: dataDir, ...serviceEnv.gateway });
  start('gateway');

  const waitReady = async (url: string, deadlineMs: number) => {
    const until = Date.now() + deadlineMs;
    while (Date.now() < until) {
      if (await fetch(url).then((r) => r.status === 200, () => false)) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  };
  const exited = (child: ChildProcess) =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGKILL');
    });
  return {
    gateway: `http://127.0.0.1:${port}`,
    gatewayHttps: `https://127.0.0.1:${httpsPort}`,
    dataDir,
    databases,
    kill: (name) => exited(children.get(name)!),
    restart: (name) => start(name),
    waitReady,
    async sql(service, text, values = []) {
      const client = new pg.Client({ connectionString: databases[service] });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    logs: () => [...output].map(([n, o]) => `--- ${n}\n${o.slice(-3000)}`).join('\n'),
    async stop() {
      await Promise.all([...children.values()].map(exited));
      for (const url of Object.values(databases)) await dropTestDatabase(url);
      await releaseTestPostgres();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
