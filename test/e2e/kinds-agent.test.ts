import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeToolModel, type FakeToolModel } from '../support/fake-openai-tools';
import { createApp, startToolServer, type ToolServer } from './kinds-support';
import { TASKS_TEST_ENV, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

/** A port nothing listens on: bound, then closed again. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const user = (content: string) => ({ messages: [{ role: 'user', content }] });

// The agent kind: HTTP tools offered to the model, the tool loop, its step limit and its record.
describe('agent kind', () => {
  let t: TestSystem | null;
  let tools: ToolServer;
  let model: FakeToolModel;
  let key: string;
  let token: string;
  let closedPort: number;

  const weatherTool = () => ({ name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, url: `${tools.url}/weather`, method: 'POST' });

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    tools = await startToolServer();
    model = await startFakeToolModel();
    ({ key, token } = await newAccountWithKey(t));
    closedPort = await freePort();
    const all = [
      weatherTool(),
      { name: 'lookup', url: `${tools.url}/lookup`, method: 'GET' },
      { name: 'broken', url: `${tools.url}/broken` },
      { name: 'slow', url: `${tools.url}/slow`, timeout_ms: 200 },
      { name: 'hold', url: `${tools.url}/hold` },
      { name: 'closed', url: `http://127.0.0.1:${closedPort}/nothing` },
    ];
    await createApp(t, token, { app_id: 'ag-echo', kind: 'agent', system_prompt: 'Use tools.', settings: { tools: all } });
    await createApp(t, token, { app_id: 'ag-limit', kind: 'agent', settings: { tools: all, max_steps: 2 } });
    await createApp(t, token, { app_id: 'ag-openai', kind: 'agent', provider: 'openai-compatible', model: 'fake-tools', base_url: model.baseUrl, settings: { tools: [weatherTool()] } });
  });
  afterAll(async () => {
    await model?.close();
    await tools?.close();
    await t?.stop();
  });

  it('runs a tool over HTTP and answers with its result (echo provider), recording the call', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/agent/ag-echo/sync', { key, body: user('how warm? call tool weather {"city": "Paris"}') });
    expect(r.status).toBe(200);
    expect(r.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Echo: how warm? call tool weather {"city": "Paris"} | weather returned {"city":"Paris","temp_c":21}' } });
    expect(tools.requests.filter((q) => q.path === '/weather').at(-1)).toMatchObject({ method: 'POST', body: { city: 'Paris' }, headers: { 'content-type': 'application/json' } });
    expect(r.body.tool_calls).toEqual([{ id: 'call_echo_1', step: 1, name: 'weather', arguments: { city: 'Paris' }, status: 'ok', http_status: 200, result: '{"city":"Paris","temp_c":21}', duration_ms: expect.any(Number) }]);
    expect(r.body.steps).toBe(2);
    const task = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key });
    expect(task.body).toMatchObject({ status: '已完成', task_result: { tool_calls: [{ name: 'weather', status: 'ok' }] }, task_progress: { step: 1, max_steps: 5, tool_calls: [{ name: 'weather', status: 'ok' }] } });
  });

  it('sends GET tools their arguments as query parameters', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/agent/ag-echo/sync', { key, body: user('call tool lookup {"q": "tollgate"}') });
    expect(r.body.choices[0].message.content).toBe('Echo: call tool lookup {"q": "tollgate"} | lookup returned found tollgate');
  });

  it('feeds tool failures back to the model as the tool result instead of failing the task', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/agent/ag-echo/sync', { key, body: user('call tool broken {} call tool slow {} call tool closed {} call tool nosuch {}') });
    expect(r.status).toBe(200);
    const calls = r.body.tool_calls;
    expect(calls.map((c: any) => [c.name, c.status, c.http_status])).toEqual([
      ['broken', 'error', 500],
      ['slow', 'error', undefined],
      ['closed', 'error', undefined],
      ['nosuch', 'error', undefined],
    ]);
    expect(calls[0].result).toBe('error: tool broken answered HTTP 500: tool exploded');
    expect(calls[1].result).toMatch(/^error: tool slow: POST http:\/\/127\.0\.0\.1:\d+\/slow did not answer within 200 ms$/);
    expect(calls[2].result).toMatch(new RegExp(`^error: tool closed: POST http://127\\.0\\.0\\.1:${closedPort}/nothing unreachable: ECONNREFUSED$`));
    expect(calls[3].result).toMatch(/^error: there is no tool named nosuch; available: weather, lookup/);
    const content = r.body.choices[0].message.content;
    expect(content).toContain('| broken returned error: tool broken answered HTTP 500: tool exploded');
    expect(content).toContain('| nosuch returned error: there is no tool named nosuch');
    const task = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key });
    expect(task.body.status).toBe('已完成');
  });

  it('answers arguments that are not a JSON object with an error instead of calling the tool', async () => {
    if (!t) return;
    const before = tools.requests.length;
    const r = await send(t, 'POST', '/v1/agent/ag-echo/sync', { key, body: user('call tool weather {city: Paris}') });
    expect(r.body.tool_calls).toEqual([expect.objectContaining({ name: 'weather', status: 'error', arguments: '{city: Paris}', result: 'error: the arguments of weather must be a JSON object, got: {city: Paris}' })]);
    expect(tools.requests.length).toBe(before);
  });

  it('stops at max_steps while the model still asks for tools', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/agent/ag-limit/sync', { key, body: user('call tool lookup {"q": "a"} call tool lookup {"q": "b"} call tool lookup {"q": "c"}') });
    expect(r.status).toBe(200);
    expect(r.body.choices[0]).toMatchObject({ finish_reason: 'max_steps', message: { content: 'stopped after 2 steps (max_steps) while the model still asked for lookup' } });
    expect(r.body.tool_calls.map((c: any) => c.arguments)).toEqual([{ q: 'a' }]);
    expect(r.body.steps).toBe(2);
    expect((await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key })).body.status).toBe('已完成');
  });

  it('reports each tool call in task_progress while the task runs (async)', async () => {
    if (!t) return;
    const before = tools.requests.filter((q) => q.path === '/hold').length;
    const sub = await send(t, 'POST', '/v1/agent/ag-echo/async', { key, body: user('call tool hold {"n": 1}') });
    expect(sub.status).toBe(200);
    await tools.arrived('/hold', before + 1);
    const running = await send(t, 'GET', `/v1/task-query/${sub.body.task_number}`, { key });
    expect(running.body).toMatchObject({ status: '执行中', task_progress: { step: 1, max_steps: 5, tool_calls: [{ id: 'call_echo_1', name: 'hold', status: 'running' }] } });
    tools.release();
    const done = await waitForStatus(t, key, sub.body.task_number, ['已完成', '已报错']);
    expect(done.status).toBe('已完成');
    expect(done.task_progress.tool_calls).toEqual([expect.objectContaining({ name: 'hold', status: 'ok', arguments: { n: 1 } })]);
    expect(done.task_result.tool_calls[0]).toMatchObject({ name: 'hold', status: 'ok', result: '{"held":true,"got":{"n":1}}' });
    expect(done.task_result.choices[0].message.content).toBe('Echo: call tool hold {"n": 1} | hold returned {"held":true,"got":{"n":1}}');
  });

  it('streams the final answer over SSE and puts the tool calls on the last chunk', async () => {
    if (!t) return;
    const sse = await readSse(await openStream(t, '/v1/agent/ag-echo/sync', key, { ...user('call tool weather {"city": "Oslo"}'), stream: true }));
    expect(sse.done).toBe(true);
    expect(sse.json.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Echo: call tool weather {"city": "Oslo"} | weather returned {"city":"Oslo","temp_c":21}');
    expect(sse.json.at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }], tool_calls: [{ name: 'weather', status: 'ok' }] });
  });

  it('gives the demo agent a built-in tool that needs no network', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: user('what time is it? call tool current_time {}') });
    expect(r.body.choices[0].message.content).toMatch(/^Echo: what time is it\? call tool current_time \{\} \| current_time returned \{"utc":"\d{4}-\d\d-\d\dT[\d:.]+Z"\}$/);
    expect(r.body.tool_calls[0]).toMatchObject({ name: 'current_time', status: 'ok' });
  });

  describe.each([false, true])('against an OpenAI-protocol model (stream %s)', (stream) => {
    it('offers the tools in the OpenAI format, runs the tool_calls and returns the result as a tool message', async () => {
      if (!t) return;
      const from = model.requests.length;
      const body = { ...user('use weather {"city":"Rome"}'), stream };
      let content: string;
      let toolCalls: any[];
      if (stream) {
        const sse = await readSse(await openStream(t, '/v1/agent/ag-openai/sync', key, body));
        expect(sse.done).toBe(true);
        content = sse.json.map((c) => c.choices[0].delta.content ?? '').join('');
        toolCalls = sse.json.at(-1).tool_calls;
      } else {
        const r = await send(t, 'POST', '/v1/agent/ag-openai/sync', { key, body });
        expect(r.status).toBe(200);
        content = r.body.choices[0].message.content;
        toolCalls = r.body.tool_calls;
        expect(r.body.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
      }
      expect(content).toBe('The tool answered: {"city":"Rome","temp_c":21}');
      expect(toolCalls).toEqual([expect.objectContaining({ id: `call_fake_${from + 1}`, name: 'weather', arguments: { city: 'Rome' }, status: 'ok' })]);

      const [first, second] = model.requests.slice(from);
      expect(model.requests.length - from).toBe(2);
      expect(first.tools).toEqual([{ type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
      expect(first.stream).toBe(stream);
      expect(second.messages.slice(-2)).toEqual([
        { role: 'assistant', content: null, tool_calls: [{ id: `call_fake_${from + 1}`, type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } }] },
        { role: 'tool', tool_call_id: `call_fake_${from + 1}`, content: '{"city":"Rome","temp_c":21}' },
      ]);
    });
  });
});
