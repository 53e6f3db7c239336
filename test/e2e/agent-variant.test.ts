import { startTestSystem, type TestSystem } from '../support/system';
import { TASKS_TEST_ENV, newAccountWithKey, send, waitForStatus } from './tasks-support';

// The spec's second variant, POST /v1/agent/: any call_params object runs. The conversation is the
// top-level messages, else call_params.messages / query, else one user message built from the
// call_params: by the app's input_template, or as `key: value` lines.
describe('POST /v1/agent/ with any call_params', () => {
  let t: TestSystem | null;
  let key: string;
  let token: string;

  const variant = (body: Record<string, unknown>, withKey = true) => send(t!, 'POST', '/v1/agent/', { ...(withKey && { key }), body: { app_id: 'demo-agent', wait_response: true, ...body } });
  const contentOf = (r: { body: any }) => r.body.choices?.[0]?.message?.content;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    ({ key, token } = await newAccountWithKey(t));
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('runs with empty call_params, and with no call_params at all: the user message is empty', async () => {
    if (!t) return;
    for (const body of [{ call_params: {} }, {}]) {
      const r = await variant(body);
      expect({ body, status: r.status }).toEqual({ body, status: 200 });
      expect(contentOf(r)).toBe('Echo: ');
    }
  });

  it('runs with custom fields: an app without a template receives them as key: value lines, in the order sent', async () => {
    if (!t) return;
    expect(contentOf(await variant({ call_params: { input: 'what is the weather' } }))).toBe('Echo: input: what is the weather');
    const r = await variant({ call_params: { city: 'Paris', days: 3, tags: ['rain', 'wind'], echo_delay_ms: 0 } });
    expect(r.status).toBe(200);
    expect(contentOf(r)).toBe('Echo: city: Paris\ndays: 3\ntags: ["rain","wind"]');
    const task = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key });
    expect(task.body).toMatchObject({ status: '已完成', kind: 'agent', app_id: 'demo-agent' });
  });

  it('accepts top-level messages, which win over call_params', async () => {
    if (!t) return;
    const r = await variant({ messages: [{ role: 'user', content: 'from the top' }], call_params: { input: 'ignored' } });
    expect(r.status).toBe(200);
    expect(contentOf(r)).toBe('Echo: from the top');
    const bad = await variant({ messages: [] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'messages']);
    expect((await variant({ messages: 'hello' })).status).toBe(422);
  });

  it('keeps call_params.query and call_params.messages', async () => {
    if (!t) return;
    expect(contentOf(await variant({ call_params: { query: 'plain query' } }))).toBe('Echo: plain query');
    expect(contentOf(await variant({ call_params: { messages: [{ role: 'user', content: 'nested' }] } }))).toBe('Echo: nested');
  });

  it("builds the prompt with the app's input_template, and names the variables the call_params leave empty", async () => {
    if (!t) return;
    const created = await send(t, 'POST', '/v1/apps', { key: token, body: { app_id: 'templated-agent', kind: 'agent', name: 'Templated', settings: { input_template: 'Weather in {{city}} for {{days}} days ({{opts.unit}})' } } });
    expect(created.status).toBe(200);
    const run = (call_params: unknown) => variant({ app_id: 'templated-agent', call_params });
    const r = await run({ city: 'Oslo', days: 2, opts: { unit: 'C' } });
    expect(r.status).toBe(200);
    expect(contentOf(r)).toBe('Echo: Weather in Oslo for 2 days (C)');
    const missing = await run({ city: 'Oslo' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'call_params', 'days'],
      ['body', 'call_params', 'opts', 'unit'],
    ]);
    expect((await run({})).status).toBe(422);
  });

  it('submits with wait_response false and any call_params', async () => {
    if (!t) return;
    const r = await variant({ wait_response: false, call_params: { input: 'later' } });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('等待中');
    const done = await waitForStatus(t, key, r.body.task_number, ['已完成']);
    expect(done.task_result.choices[0].message.content).toBe('Echo: input: later');
  });

  it('refuses an input_template that does not parse, and call_params that are not an object', async () => {
    if (!t) return;
    const bad = await send(t, 'POST', '/v1/apps', { key: token, body: { app_id: 'broken-template', kind: 'agent', name: 'Broken', settings: { input_template: 'Hi {{ name' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'settings', 'input_template']);
    for (const call_params of ['text', [1, 2], 5]) {
      const r = await variant({ call_params });
      expect({ call_params, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ call_params, status: 422, loc: ['body', 'call_params'] });
    }
  });
});
