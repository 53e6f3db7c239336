import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** `pnpm start`'s program with `env`: its exit code and what it wrote to stderr. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-start-'));
  chmodSync(dataDir, 0o755); // as root, the embedded PostgreSQL runs as the `postgres` user, who must reach it
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/system/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HTTPS_PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stderr });
    });
  });
}

// A start that cannot go ahead says why in one line and exits 1: no stack trace, which a person
// would have to read through (LOG_LEVEL=debug prints it too).
describe('refused starts', () => {
  jest.setTimeout(120_000);

  it.each([
    ['a port that is not a number', { PORT: 'abc' }, /^tollgate could not start: invalid configuration:[\s\S]*PORT/],
    ['a certificate without its key', { TLS_CERT_FILE: '/nonexistent/cert.pem' }, /TLS_CERT_FILE and TLS_KEY_FILE go together/],
    ['certificate files that do not exist', { TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: '/nonexistent/key.pem' }, /TLS_CERT_FILE \/nonexistent\/cert\.pem cannot be read: ENOENT/],
  ])('%s', async (_what, env, message) => {
    const { code, stderr } = await start(env);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
