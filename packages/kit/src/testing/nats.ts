import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 4222;

let started: Promise<string | null> | undefined;

/**
 * A NATS URL with JetStream for integration tests: $NATS_URL, else a server already on
 * 127.0.0.1:4222, else a `nats-server -js` started on a free port for this process; null if none.
 */
export function natsUrlForTests(): Promise<string | null> {
  started ??= resolveUrl();
  return started;
}

/** Synchronous answer to "can natsUrlForTests succeed?", for choosing `describe` or `describe.skip`. */
export function natsTestsCanRun(): boolean {
  if (process.env.NATS_URL || natsServerBinary()) return true;
  const probe = spawnSync(process.execPath, ['-e', `(${probeSource})(${JSON.stringify(DEFAULT_HOST)}, ${DEFAULT_PORT}, 1000).then((ok) => process.exit(ok ? 0 : 1))`], { timeout: 3000 });
  return probe.status === 0;
}

export function warnNatsSkipped(suite: string): void {
  console.warn(
    [
      '',
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      `!! SKIPPED: ${suite}`,
      '!! No NATS with JetStream: NATS_URL is unset, nothing with JetStream answers on',
      `!! ${DEFAULT_HOST}:${DEFAULT_PORT}, and no nats-server binary is on PATH or in /usr/sbin.`,
      '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      '',
    ].join('\n'),
  );
}

async function resolveUrl(): Promise<string | null> {
  if (process.env.NATS_URL) return process.env.NATS_URL;
  if (await hasJetStream(DEFAULT_HOST, DEFAULT_PORT, 1000)) return `nats://${DEFAULT_HOST}:${DEFAULT_PORT}`;
  const bin = natsServerBinary();
  return bin ? startServer(bin) : null;
}

function natsServerBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((d) => join(d, 'nats-server')).find((p) => existsSync(p));
}

/** Runs nats-server under a guardian process that kills it and removes its store when our stdin pipe closes, i.e. when this process ends however it ends. */
const guardianSource = `
const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const [bin, host, port, dir] = process.argv.slice(1);
const server = spawn(bin, ['-a', host, '-p', port, '-js', '-sd', dir], { stdio: 'ignore' });
const finish = (code) => { rmSync(dir, { recursive: true, force: true }); process.exit(code); };
process.stdin.on('end', () => { server.removeAllListeners('exit').once('exit', () => finish(0)); server.kill('SIGKILL'); }).resume();
server.once('exit', () => finish(1));
`;

async function startServer(bin: string): Promise<string> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nats-test-'));
  const guardian = spawn(process.execPath, ['-e', guardianSource, bin, DEFAULT_HOST, String(port), dir], { stdio: ['pipe', 'ignore', 'ignore'] });
  guardian.unref();
  (guardian.stdin as unknown as Socket).unref();
  const deadline = Date.now() + 10_000;
  while (!(await hasJetStream(DEFAULT_HOST, port, 500))) {
    if (guardian.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server on port ${port} did not start (guardian exit code ${guardian.exitCode})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return `nats://${DEFAULT_HOST}:${port}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, DEFAULT_HOST, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const probeSource = (host: string, port: number, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const socket: Socket = new (require('node:net').Socket)();
    let buf = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      if (buf.includes('\n')) done(/^INFO .*"jetstream":true/.test(buf));
    });
    socket.connect(port, host);
  });

function hasJetStream(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return probeSource(host, port, timeoutMs);
}
