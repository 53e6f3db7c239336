import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { fetchTrusting } from './support/https';

const ROOT = resolve(__dirname, '..');
const ADMIN_TOKEN = 'clean-stop-admin-token-0123456789abcdef';
/** A fresh data folder's start (initdb, every migration, the threads' code loading) on a busy 2-core machine, and the stop. */
const START_AND_STOP_MS = 240_000;

interface Run {
  child: ChildProcess;
  /** Every line written to stdout and stderr so far. */
  lines: string[];
  /** Resolves with the first line matching `re`. */
  waitFor(re: RegExp): Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The same program as `pnpm start` (tsx packages/system/src/main.ts), in its own process group as in a
 * terminal. The admin token and the sealing key are given, so a first start has no notice to log either.
 */
function startTollgate(dataDir: string): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HTTPS_PORT: '0', TOLLGATE_DATA_DIR: dataDir, TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN, TOLLGATE_SECRET_KEY: 'ab'.repeat(32), LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  for (const k of Object.keys(env)) if (k === 'NATS_URL' || k === 'DATABASE_URL' || k.startsWith('DATABASE_URL_')) delete env[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/system/src/main.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  const take = (chunk: Buffer, rest: { s: string }) => {
    rest.s += chunk.toString('utf8');
    const parts = rest.s.split('\n');
    rest.s = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.re.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  const out = { s: '' };
  const err = { s: '' };
  child.stdout!.on('data', (c: Buffer) => take(c, out));
  child.stderr!.on('data', (c: Buffer) => take(c, err));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return {
    child,
    lines,
    exit,
    waitFor: (re) => {
      const found = lines.find((l) => re.test(l));
      return found !== undefined ? Promise.resolve(found) : Promise.race([new Promise<string>((r) => waiters.push({ re, resolve: r })), exit.then(() => Promise.reject(new Error(`exited before ${re}:\n${lines.join('\n')}`)))]);
    },
  };
}

/** A user made with the admin token (HTTPS) and an API key of theirs (HTTP form). */
async function apiKey(http: string, https: string, cert: string): Promise<string> {
  const user = await fetchTrusting(cert)(`${https}/api/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'stop', email: `stop-${process.pid}-${Date.now()}@example.com`, level: 'pro' }),
  });
  const token = ((await user.json()) as { data: { token: string } }).data.token;
  const key = await fetch(`${http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, name: 'stop key' }) });
  return ((await key.json()) as { data: { key: string } }).data.key;
}

/** pino JSON lines at warn (40) or above, and anything on the console that is not JSON and not the banner. */
function problems(lines: string[]): string[] {
  return lines.filter((line) => {
    if (!line.trim()) return false;
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 40;
    } catch {
      return !/^(Tollgate is running\.| {2}(HTTP|HTTPS|console|data|Ctrl-C)\b)/.test(line);
    }
  });
}

const messages = (lines: string[]) => lines.flatMap((l) => { try { const j = JSON.parse(l) as { msg?: string; service?: string; component?: string }; return [`${j.service ?? j.component ?? '-'}: ${j.msg}`]; } catch { return []; } });

// Ctrl-C / SIGTERM on the real program (services in worker threads, as `pnpm start` runs them):
// ordered stop, exit code 0, not one warning or error.
describe('clean stop of the embedded default', () => {
  const dirs: string[] = [];
  const runs: Run[] = [];
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'tollgate-stop-'));
    chmodSync(d, 0o755); // as root, the embedded PostgreSQL runs as `postgres` and must reach it
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const r of runs) if (r.child.exitCode === null) try { process.kill(-r.child.pid!, 'SIGKILL'); } catch { /* gone */ }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s (to the whole process group, like a terminal) in order and cleanly', async (signal) => {
    const dir = dataDir();
    const run = startTollgate(dir);
    runs.push(run);
    await run.waitFor(/^Tollgate is running\./);
    const http = (await run.waitFor(/"msg":"gateway listening"/)).match(/"httpUrl":"([^"]+)"/)![1];
    expect((await fetch(`${http}/readyz`)).status).toBe(200);
    // A streamed execution in flight when the signal arrives: it finishes, and is answered in full.
    const https = (await run.waitFor(/"msg":"gateway listening"/)).match(/"httpsUrl":"([^"]+)"/)![1];
    const key = await apiKey(http, https, readFileSync(join(dir, 'tls', 'gateway-cert.pem'), 'utf8'));
    const res = await fetch(`${http}/v1/agent/demo-agent/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'one two three four five six' }], stream: true, call_params: { echo_delay_ms: 150 } }),
    });
    expect(res.status).toBe(200);
    // And a JSON one that needs longer than a few seconds more (five chunks 1.5 s apart).
    const slow = fetch(`${http}/v1/agent/demo-agent/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'a b c d' }], call_params: { echo_delay_ms: 1_500 } }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { choices: Array<{ message: { content: string } }> } }));
    await new Promise((r) => setTimeout(r, 500));
    const reader = res.body!.getReader();
    let body = new TextDecoder().decode((await reader.read()).value);
    process.kill(-run.child.pid!, signal);
    // The same signal again a moment later, as a launcher passing it on (pnpm start → tsx → node) delivers it: still one stop.
    await new Promise((r) => setTimeout(r, 20));
    process.kill(-run.child.pid!, signal);
    for (let r = await reader.read(); !r.done; r = await reader.read()) body += new TextDecoder().decode(r.value);
    expect(body).toContain('six');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const answered = await slow;
    expect(answered.status).toBe(200);
    expect(answered.body.choices[0].message.content).toBe('Echo: a b c d');
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(problems(run.lines)).toEqual([]);
    const log = messages(run.lines);
    const at = (m: string) => {
      const i = log.indexOf(m);
      if (i < 0) throw new Error(`"${m}" was not logged; the log:\n${log.join('\n')}`);
      return i;
    };
    expect(at('-: shutting down')).toBeGreaterThan(-1);
    // Gateway first (nothing new is accepted), then the services in reverse start order, the database last.
    for (const [before, after] of [['search: search stopped', 'tasks: tasks stopped'], ['tasks: tasks stopped', 'keys: keys stopped'], ['keys: keys stopped', 'postgres: embedded PostgreSQL stopped'], ['keys: keys stopped', '-: stopped cleanly']]) {
      expect(at(before)).toBeGreaterThan(at('-: shutting down'));
      expect(at(after)).toBeGreaterThan(at(before));
    }
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, START_AND_STOP_MS);

  it('stops cleanly on SIGTERM during start-up', async () => {
    const dir = dataDir();
    const run = startTollgate(dir);
    runs.push(run);
    await run.waitFor(/"msg":"applied migration"/); // the database is up, the services are starting
    process.kill(-run.child.pid!, 'SIGTERM');
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(problems(run.lines)).toEqual([]);
    expect(run.lines.some((l) => l.startsWith('Tollgate is running'))).toBe(false);
    expect(messages(run.lines)).toContain('-: stopped cleanly');
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, START_AND_STOP_MS);
});
