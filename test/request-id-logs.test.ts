import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SERVICE_NAMES, createLogger } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { loadSystemConfig, startEmbeddedSystem, type EmbeddedSystem } from '@tollgate/system';
import { fetchTrusting } from './support/https';

interface Line {
  level: number;
  msg: string;
  requestId?: string;
  service?: string;
  [key: string]: unknown;
}

/** A new user's new API key (`channel`: e.g. provider:<name>). */
async function newKey(system: EmbeddedSystem, channel = 'platform'): Promise<string> {
  const https = fetchTrusting(system.gateway.tlsCert!);
  const user = await https(`${system.gateway.httpsUrl}/api/v1/users`, {
    method: 'POST',
    headers: { authorization: 'Bearer tg-logs-admin-token-0123456789abcdef', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Logs', email: `logs-${Date.now()}-${Math.random()}@example.com` }),
  });
  const token = ((await user.json()) as { data: { token: string } }).data.token;
  const created = await fetch(`${system.gateway.httpUrl}/apikeys/create`, { method: 'POST', body: new URLSearchParams({ token, name: 'logs', channel }) });
  return ((await created.json()) as { data: { key: string } }).data.key;
}

// One request id from the gateway's HTTP request through gRPC into the service's log lines.
describe('request id in the logs', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  let system: EmbeddedSystem | undefined;
  const urls: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-logs-'));

  beforeAll(async () => {
    const env: Record<string, string> = { TOLLGATE_ADMIN_TOKEN: 'tg-logs-admin-token-0123456789abcdef', TOLLGATE_DATA_DIR: dataDir, PROVIDERS: JSON.stringify({ nowhere: { base_url: 'http://127.0.0.1:9/v1' } }) };
    for (const name of SERVICE_NAMES) {
      const url = await createTestDatabase(`logs_${name}`);
      if (!url) return;
      urls.push(url);
      env[`DATABASE_URL_${name.toUpperCase()}`] = url;
    }
    const log = createLogger({ name: 'tollgate', level: 'debug', destination: sink });
    system = await startEmbeddedSystem({ config: loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env }), log, env });
  });
  afterAll(async () => {
    await system?.stop();
    for (const url of urls) await dropTestDatabase(url);
    await releaseTestPostgres();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes JSON lines', () => {
    if (!system) return;
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('puts the gateway request’s id on the gateway’s lines and on the keys service’s lines for the same request', async () => {
    if (!system) return;
    const requestId = `logs-${Date.now().toString(36)}`;
    const res = await fetch(`${system.gateway.httpUrl}/apikeys/list`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
      body: new URLSearchParams({ token: 'no-such-user-token-0123456789abcdef' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    await new Promise((r) => setTimeout(r, 50));

    const parsed = lines.map((l) => JSON.parse(l) as Line);
    const mentioning = parsed.filter((l) => JSON.stringify(l).includes(requestId));
    const services = new Set(mentioning.map((l) => l.service));
    expect(services).toEqual(new Set(['gateway', 'keys']));
    for (const line of mentioning) expect({ msg: line.msg, requestId: line.requestId }).toEqual({ msg: line.msg, requestId });
    expect(mentioning.find((l) => l.service === 'keys')?.msg).toBe('rpc rejected');
  });

  it('logs a model provider that failed as a warning without a stack: the fault is upstream, not in Tollgate', async () => {
    if (!system) return;
    const key = await newKey(system);
    const requestId = `upstream-${Date.now().toString(36)}`;
    const res = await fetch(`${system.gateway.httpUrl}/v1/agent/demo-agent/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], call_params: { echo_error: 'model overloaded' } }),
    });
    expect(res.status).toBe(503);
    await new Promise((r) => setTimeout(r, 50));
    const mentioning = lines.map((l) => JSON.parse(l) as Line).filter((l) => l.requestId === requestId);
    expect(mentioning.filter((l) => l.level >= 50)).toEqual([]);
    expect(mentioning.find((l) => l.level === 40 && l.msg === 'upstream failed')).toMatchObject({ service: 'gateway', task_number: expect.any(String), reason: expect.stringContaining('model overloaded') });
    expect(JSON.stringify(mentioning)).not.toContain('"stack"');
  });

  it('logs a passthrough provider that cannot be reached as a warning without a stack', async () => {
    if (!system) return;
    const key = await newKey(system, 'provider:nowhere');
    const requestId = `unreachable-${Date.now().toString(36)}`;
    const res = await fetch(`${system.gateway.httpUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(502);
    await new Promise((r) => setTimeout(r, 50));
    const mentioning = lines.map((l) => JSON.parse(l) as Line).filter((l) => l.requestId === requestId);
    expect(mentioning.filter((l) => l.level >= 50)).toEqual([]);
    expect(mentioning.find((l) => l.level === 40 && l.msg === 'upstream failed')).toMatchObject({ provider: 'nowhere', reason: expect.stringContaining('ECONNREFUSED') });
    expect(JSON.stringify(mentioning)).not.toContain('"stack"');
  });

  it('logs a client that left before its answer as such, not as a failure of Tollgate (sync and streamed)', async () => {
    if (!system) return;
    const key = await newKey(system);
    for (const stream of [false, true]) {
      const requestId = `left-${stream}-${Date.now().toString(36)}`;
      const leaving = new AbortController();
      const res = fetch(`${system.gateway.httpUrl}/v1/agent/demo-agent/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'one two three four' }], stream, call_params: { echo_delay_ms: 1_000 } }),
        signal: leaving.signal,
      });
      // A stream is under way once its headers came; the JSON answer takes five seconds, the client leaves well before.
      if (stream) await res;
      else await new Promise((r) => setTimeout(r, 700));
      leaving.abort();
      await res.then((r) => r.text()).catch(() => undefined);
      const ofIt = () => lines.map((l) => JSON.parse(l) as Line).filter((l) => l.requestId === requestId);
      for (let waited = 0; !ofIt().some((l) => l.msg === 'request aborted'); waited += 50) {
        if (waited > 10_000) throw new Error(`no 'request aborted' line for ${requestId}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(ofIt().filter((l) => l.level >= 40)).toEqual([]);
    }
  });

  it('never repeats the requestId key on a line', () => {
    if (!system) return;
    for (const line of lines) expect(line.match(/"requestId":/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });
});
