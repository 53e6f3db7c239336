import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { startTestSystem, type TestSystem } from '../support/system';
import { TASKS_TEST_ENV, newAccountWithKey } from '../e2e/tasks-support';
import { Rng, fuzzSeed } from './rng';
import { plausible, type JsonSchema } from './schema-values';
import { garbageHeaders, mutateBody, oddPathValue, type FuzzBody } from './mutations';

/** How many requests one run sends (FUZZ_REQUESTS), and the bound on one answer. */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5_000);
const CONCURRENCY = 4;
const HANG_BOUND_MS = 5_000;

interface Operation {
  method: string;
  path: string;
  security: string | undefined;
  params: Array<{ name: string; in: string; schema?: JsonSchema }>;
  body?: { contentType: string; schema: JsonSchema };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  ms: number;
}

interface Probe {
  op: string;
  method: string;
  url: string;
  body: string;
}

/** Kept-alive connections, as a real client has: the run measures the server, not TLS handshakes. */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: CONCURRENCY }), https: new HttpsAgent({ keepAlive: true, maxSockets: CONCURRENCY, rejectUnauthorized: true }) };

/** Sends one request with node's client (it reports the answer even when the server stops reading a large body). */
function send(base: string, ca: string | undefined, method: string, path: string, headers: Record<string, string>, body: Buffer | undefined, retried = false): Promise<Answer> {
  const started = process.hrtime.bigint();
  const url = new URL(base);
  const tls = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const options = { host: url.hostname, port: Number(url.port), method, path, headers: { ...headers, ...(body && { 'content-length': String(body.length) }) }, ca, agent: tls ? agents.https : agents.http };
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${HANG_BOUND_MS * 2} ms`)), HANG_BOUND_MS * 2);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as idle just as it was reused: send again on a new
      // one (the race every keep-alive client has; Node's documentation recommends this retry).
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) return resolve(send(base, ca, method, path, headers, body, true));
      // The server may answer (413) and close before a large body is sent: the answer counts, not the broken pipe.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return reject(Object.assign(err, { closedEarly: true }));
      reject(err);
    });
    if (body) req.end(body);
    else req.end();
  });
}

/** The public error shape of the surface: the envelope on /api/*, `{detail}` elsewhere. */
function shapeProblem(path: string, a: Answer): string | null {
  if (a.status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `error body is not JSON: ${a.text.slice(0, 120)}`;
  }
  if (/^\/api(\/|$|\?)/.test(path)) {
    if (body.code !== a.status || typeof body.message !== 'string' || typeof body.timestamp !== 'string' || !('data' in body)) return `not the envelope: ${a.text.slice(0, 200)}`;
    if (a.headers['x-ratelimit-limit'] === undefined && a.status !== 429) return 'envelope without the rate-limit headers';
    return null;
  }
  const d = body.detail;
  const ok = typeof d === 'string' || (Array.isArray(d) && d.length > 0 && d.every((i: any) => Array.isArray(i.loc) && i.loc.every((l: unknown) => typeof l === 'string') && typeof i.msg === 'string' && typeof i.type === 'string'));
  if (!ok) return `not {detail}: ${a.text.slice(0, 200)}`;
  if (a.status >= 500 && typeof body.request_id !== 'string') return '5xx without request_id';
  if (a.status >= 500 && /127\.0\.0\.1|remote_addr|at .*\.ts:\d+/.test(a.text)) return `5xx leaks internals: ${a.text.slice(0, 200)}`;
  return null;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0];
      ops.push({ method: method.toUpperCase(), path, security: Object.keys(op.security?.[0] ?? {})[0], params: op.parameters ?? [], body: contentType ? { contentType, schema: content[contentType].schema } : undefined });
    }
  }
  return ops;
}

// Every operation of /openapi.json driven with malformed and hostile requests. Seeded: a failure
// prints FUZZ_SEED, and `FUZZ_SEED=<seed> pnpm exec jest test/fuzz` replays the same requests.
describe('fuzzing every operation of /openapi.json', () => {
  let t: TestSystem | null;
  let creds: { key: string; token: string };
  const seed = fuzzSeed();
  beforeAll(async () => {
    t = await startTestSystem({ ...TASKS_TEST_ENV, DOCS_RATE_LIMIT_PRO: '1000000', DOCS_RATE_LIMIT_FREE: '1000000' });
    if (t) creds = await newAccountWithKey(t);
  }, 120_000);
  afterAll(async () => {
    agents.http.destroy();
    agents.https.destroy();
    await t?.stop();
  });

  it(`answers ${REQUESTS} malformed requests without a 500, a hang, or a body out of shape (seed printed)`, async () => {
    if (!t) return;
    // eslint-disable-next-line no-console
    console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
    const rng = new Rng(seed);
    const doc = await (await fetch(`${t.http}/openapi.json`)).json();
    const resolve = (s: JsonSchema): JsonSchema => (s.$ref ? resolve(s.$ref.split('/').slice(1).reduce((o: any, k) => o[k], doc)) : s);
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(30);
    const ca = t.system.gateway.tlsCert;

    const failures: Array<{ probe: Probe; problem: string }> = [];
    const seen = new Map<string, number>();
    let sent = 0;
    let slowest = 0;
    const timings: Array<{ ms: number; what: string }> = [];

    const build = (): { op: Operation; path: string; headers: Record<string, string>; body: FuzzBody; base: string } => {
      const op = rng.pick(ops);
      let path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        if (rng.chance(0.45)) return oddPathValue(rng);
        const p = op.params.find((x) => x.name === name);
        return encodeURIComponent(String(plausible(p?.schema, rng, resolve) ?? 'x'));
      });
      const query = op.params.filter((p) => p.in === 'query' && rng.chance(0.6));
      if (query.length) path += `?${query.map((p) => `${encodeURIComponent(p.name)}=${rng.chance(0.4) ? oddPathValue(rng) : encodeURIComponent(String(plausible(p.schema, rng, resolve)))}`).join('&')}`;
      const headers: Record<string, string> = {};
      const cred = rng.int(0, 9);
      if (op.security === 'apiKey' && cred < 8) headers.authorization = `Bearer ${creds.key}`;
      if (op.security === 'userToken' && cred < 8) headers.authorization = `Bearer ${creds.token}`;
      if (cred === 9) headers.authorization = `Bearer ${rng.pick(['ak-00000000000000000000000000000000', 'nope', creds.key, creds.token])}`;
      const valid = op.body ? plausible(op.body.schema, rng, resolve) : {};
      if (op.security === 'formToken' && cred < 8 && valid && typeof valid === 'object') (valid as Record<string, unknown>).token = creds.token;
      const body = op.body || rng.chance(0.2) ? mutateBody(rng, valid, op.body?.contentType) : { kind: 'no-body' };
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      if (rng.chance(0.12)) Object.assign(headers, garbageHeaders(rng));
      const method = rng.chance(0.03) ? rng.pick(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'GET', 'POST']) : op.method;
      const docsApi = path.startsWith('/api');
      const base = docsApi && rng.chance(0.9) ? t!.https : t!.http;
      return { op: { ...op, method }, path, headers, body, base };
    };

    const cpuBefore = process.cpuUsage();
    const worker = async () => {
      while (sent < REQUESTS) {
        sent += 1;
        const r = build();
        const probe: Probe = { op: `${r.op.method} ${r.op.path}`, method: r.op.method, url: `${r.base}${r.path.slice(0, 200)}`, body: r.body.kind };
        seen.set(probe.op, (seen.get(probe.op) ?? 0) + 1);
        let answer: Answer;
        try {
          answer = await send(r.base, ca, r.op.method, r.path, r.headers, r.body.bytes);
        } catch (err) {
          if ((err as { closedEarly?: boolean }).closedEarly && r.body.bytes && r.body.bytes.length > 1024 * 1024) continue;
          failures.push({ probe, problem: `no answer: ${(err as Error).message}` });
          continue;
        }
        slowest = Math.max(slowest, answer.ms);
        if (process.env.FUZZ_TRACE) timings.push({ ms: answer.ms, what: `${answer.status} ${probe.op} [${probe.body}] ${probe.url.slice(0, 100)}` });
        if (answer.status === 500) failures.push({ probe, problem: `500: ${answer.text.slice(0, 200)}` });
        else if (answer.ms > HANG_BOUND_MS) failures.push({ probe, problem: `answered after ${Math.round(answer.ms)} ms` });
        else {
          const problem = shapeProblem(r.path, answer);
          if (problem) failures.push({ probe, problem: `${answer.status} ${problem}` });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const cpu = process.cpuUsage(cpuBefore);
    // eslint-disable-next-line no-console
    console.log(`fuzz seed ${seed}: ${sent} requests, ${operationsOf(doc).length} operations, gateway+services CPU ${((cpu.user + cpu.system) / 1000 / sent).toFixed(1)} ms per request, slowest answer ${Math.round(slowest)} ms`);

    if (process.env.FUZZ_TRACE) {
      // eslint-disable-next-line no-console
      console.log(timings.sort((a, b) => b.ms - a.ms).slice(0, 25).map((x) => `${Math.round(x.ms)} ${x.what}`).join('\n'));
    }
    // The process is alive and still serves.
    expect((await fetch(`${t.http}/healthz`)).status).toBe(200);
    expect(sent).toBeGreaterThanOrEqual(REQUESTS);
    expect(seen.size).toBe(ops.length > 0 ? seen.size : 0);
    expect(ops.every((o) => seen.has(`${o.method} ${o.path}`) || [...seen.keys()].some((k) => k.endsWith(` ${o.path}`)))).toBe(true);
    if (failures.length) {
      // eslint-disable-next-line no-console
      console.log(`fuzz seed ${seed}: ${failures.length} failures; first ones:\n${failures.slice(0, 15).map((f) => `${f.probe.op} [${f.probe.body}] ${f.probe.url}: ${f.problem}`).join('\n')}`);
    }
    expect({ seed, failures: failures.slice(0, 10) }).toEqual({ seed, failures: [] });
  }, 600_000);
});
