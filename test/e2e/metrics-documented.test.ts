import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestSystem, type TestSystem } from '../support/system';
import { TASKS_TEST_ENV, hello, newAccountWithKey, openStream, readSse, send } from './tasks-support';
import { accountKey } from './passthrough-support';
import { startReceiver, type Receiver } from './webhooks-support';

/** The metric names docs/deployment.md's Metrics table lists, by where they are served ("gateway", "each service" or "<name> service"). */
function documentedMetrics(): Array<{ where: string; names: string[]; processMetrics: boolean }> {
  const page = readFileSync(join(__dirname, '../../docs/deployment.md'), 'utf8');
  const section = page.slice(page.indexOf('## Metrics'), page.indexOf('\n## ', page.indexOf('## Metrics') + 1));
  const rows = section.split('\n').filter((line) => /^\| *(gateway|each service|[a-z]+ service) *\|/.test(line));
  return rows.map((row) => {
    const [, where, , what] = row.split('|').map((cell) => cell.trim());
    const names = [...what.matchAll(/`([a-z][a-z0-9_]*)(\{[^}]*\})?`/g)].map((m) => m[1]).filter((name) => /_(total|seconds)$/.test(name));
    return { where, names, processMetrics: /process metrics/.test(what) };
  });
}

/** Sum of every sample of a metric (a histogram by its `_count`), or undefined when it has none. */
function total(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const series = line.split(/[ {]/)[0];
    if (series !== name && series !== `${name}_count`) continue;
    sum = (sum ?? 0) + Number(line.split(' ').at(-1));
  }
  return sum;
}

// Every metric docs/deployment.md lists exists and moves once the system is used: the gateway's
// own and each service's (METRICS_PORT=0 opens their /metrics in the embedded system).
describe('the documented metrics', () => {
  let t: TestSystem | null;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestSystem({ ...TASKS_TEST_ENV, METRICS_PORT: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  const scrapeAll = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = { gateway: await (await fetch(`${t!.http}/metrics`)).text() };
    for (const [name, handle] of Object.entries(t!.system.services)) {
      if (!handle.metricsUrl) throw new Error(`service ${name} serves no metrics`);
      out[name] = await (await fetch(handle.metricsUrl)).text();
    }
    return out;
  };

  it('lists metrics for the gateway and for the services', () => {
    const rows = documentedMetrics();
    expect(rows.map((r) => r.where)).toEqual(expect.arrayContaining(['each service', 'gateway']));
    // No row of the table is skipped: every row after the header is one the test reads.
    const page = readFileSync(join(__dirname, '../../docs/deployment.md'), 'utf8');
    const section = page.slice(page.indexOf('## Metrics'), page.indexOf('\n## ', page.indexOf('## Metrics') + 1));
    expect(rows).toHaveLength(section.split('\n').filter((line) => line.startsWith('|')).length - 2);
    for (const row of rows) expect({ where: row.where, named: row.names.length > 0 }).toEqual({ where: row.where, named: true });
    const gateway = rows.find((r) => r.where === 'gateway')!;
    expect(gateway.names).toEqual(expect.arrayContaining(['http_requests_total', 'tollgate_executions_total', 'tollgate_quota_rejections_total']));
    expect(rows.find((r) => r.where === 'each service')!.names.length).toBeGreaterThan(0);
  });

  it('moves every one of them when the system is used', async () => {
    if (!t) return;
    const before = await scrapeAll();

    // Exercise every service and every outcome the gateway counts.
    const { key, token } = await newAccountWithKey(t);
    expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello('counted') })).status).toBe(200);
    expect((await send(t, 'POST', '/v1/chatbot/demo-chatbot/async', { key, body: { ...hello('counted later'), webhook: `${receiver.url}/hook` } })).status).toBe(200);
    const stream = await readSse(await openStream(t, '/v1/aiapp/demo-aiapp/sync', key, { ...hello('streamed'), stream: true }));
    expect(stream.done).toBe(true);
    expect((await send(t, 'POST', '/v1/workflow/demo-workflow/chat/completions', { key, body: hello('openai style') })).status).toBe(200);
    expect((await send(t, 'POST', '/v1/agent/no-such-app/sync', { key, body: hello('unknown') })).status).toBe(404);
    const broke = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: { ...hello('fail'), call_params: { echo_error: 'boom' } } });
    expect(broke.status).toBeGreaterThanOrEqual(500);
    const empty = await accountKey(t, 'platform', '0');
    expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: empty.key, body: hello('no quota') })).status).toBe(429);
    const docs = await t.httpsFetch(`${t.https}/api/v1/documents`, { headers: { authorization: `Bearer ${token}` } });
    expect(docs.status).toBe(200);
    const search = await t.httpsFetch(`${t.https}/api/v1/search?q=counted`, { headers: { authorization: `Bearer ${token}` } });
    expect(search.status).toBe(200);

    const services = Object.keys(t.system.services);
    const unmovedSince = (after: Record<string, string>): string[] => {
      const unmoved: string[] = [];
      for (const row of documentedMetrics()) {
        const sources = row.where === 'gateway' ? ['gateway'] : row.where === 'each service' ? services : [row.where.replace(/ service$/, '')];
        const names = [...row.names, ...(row.processMetrics ? ['process_cpu_seconds_total'] : [])];
        for (const source of sources) {
          if (!(source in after)) {
            unmoved.push(`${source}: no such service`);
            continue;
          }
          for (const name of names) {
            const was = total(before[source], name) ?? 0;
            const now = total(after[source], name);
            if (now === undefined || !(now > was)) unmoved.push(`${source}: ${name} ${was} → ${now}`);
          }
        }
      }
      return unmoved;
    };
    // The webhook of the async task is delivered by a worker after the task ends: read until it has been.
    let after = await scrapeAll();
    for (let i = 0; i < 400 && unmovedSince(after).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrapeAll();
    }
    expect(unmovedSince(after)).toEqual([]);
    expect(receiver.got.length).toBeGreaterThan(0);

    // The execution counter by kind and outcome.
    const executions = after.gateway.split('\n').filter((l) => l.startsWith('tollgate_executions_total{'));
    const has = (kind: string, outcome: string) => executions.some((l) => l.includes(`kind="${kind}"`) && l.includes(`outcome="${outcome}"`));
    expect({
      agentOk: has('agent', 'ok'),
      chatbotSubmitted: has('chatbot', 'submitted'),
      aiappOk: has('aiapp', 'ok'),
      workflowOk: has('workflow', 'ok'),
      agentRejected: has('agent', 'rejected'),
      agentError: has('agent', 'error'),
    }).toEqual({ agentOk: true, chatbotSubmitted: true, aiappOk: true, workflowOk: true, agentRejected: true, agentError: true });
  });

  it('counts a stream the client leaves before its end as cancelled', async () => {
    if (!t) return;
    const { key } = await newAccountWithKey(t);
    const cancelled = async () => {
      const text = await (await fetch(`${t!.http}/metrics`)).text();
      return total(text.split('\n').filter((l) => !l.startsWith('tollgate_executions_total{') || (l.includes('kind="chatbot"') && l.includes('outcome="cancelled"'))).join('\n'), 'tollgate_executions_total') ?? 0;
    };
    const before = await cancelled();
    const abort = new AbortController();
    const res = await openStream(t, '/v1/chatbot/demo-chatbot/sync', key, { ...hello('a long answer in many words'), stream: true, call_params: { echo_delay_ms: 2000 } }, abort.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream has started
    abort.abort();
    let now = before;
    for (let i = 0; i < 200 && now === before; i++) {
      await new Promise((r) => setTimeout(r, 50));
      now = await cancelled();
    }
    expect(now).toBe(before + 1);
  });
});
