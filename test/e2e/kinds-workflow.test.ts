import type { EventSourceMessage } from 'eventsource-parser';
import { startTestSystem, type TestSystem } from '../support/system';
import { createApp, locs, startToolServer, type ToolServer } from './kinds-support';
import { TASKS_TEST_ENV, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

const ask = (content: string, call_params?: Record<string, unknown>) => ({ messages: [{ role: 'user', content }], ...(call_params && { call_params }) });

// The workflow kind: ordered steps (model, http, template), named outputs, progress, failing steps.
describe('workflow kind', () => {
  let t: TestSystem | null;
  let server: ToolServer;
  let key: string;
  let token: string;

  const steps = (httpPath: string) => [
    { type: 'model', output: 'summary', prompt: 'Summarise: {{input}}' },
    { type: 'http', output: 'saved', method: 'POST', url: `${server.url}${httpPath}`, headers: { 'x-user': '{{call_params.user}}' }, body: { text: '{{steps.summary}}', user: '{{call_params.user}}', tags: ['wf'] } },
    { type: 'template', output: 'report', template: 'Saved #{{steps.saved.id}} for {{call_params.user}}: {{steps.summary}}' },
  ];

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    server = await startToolServer();
    ({ key, token } = await newAccountWithKey(t));
    await createApp(t, token, { app_id: 'wf-save', kind: 'workflow', system_prompt: 'Be brief.', settings: { steps: steps('/save') } });
    await createApp(t, token, { app_id: 'wf-hold', kind: 'workflow', settings: { steps: steps('/hold').map((s) => (s.output === 'report' ? { ...s, template: 'held: {{steps.saved.held}}' } : s)) } });
    await createApp(t, token, { app_id: 'wf-broken', kind: 'workflow', settings: { steps: steps('/broken') } });
    const question = { type: 'template', output: 'question', template: '{{input}}' };
    await createApp(t, token, { app_id: 'wf-live', kind: 'workflow', settings: { steps: [question, { type: 'model', output: 'answer', prompt: '{{steps.question}}' }] } });
  });
  afterAll(async () => {
    await server?.close();
    await t?.stop();
  });

  it('runs model → http → template, each output usable by the later steps', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/workflow/wf-save/sync', { key, body: ask('the long text', { user: 'ann' }) });
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe('Saved #42 for ann: Echo: Summarise: the long text');
    expect(r.body.usage).toEqual({ prompt_tokens: 2 + 4, completion_tokens: 5, total_tokens: 11 });
    expect(r.body.steps).toEqual({ summary: 'Echo: Summarise: the long text', saved: { id: 42, saved: { text: 'Echo: Summarise: the long text', user: 'ann', tags: ['wf'] } }, report: 'Saved #42 for ann: Echo: Summarise: the long text' });
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', path: '/save', headers: { 'x-user': 'ann', 'content-type': 'application/json' } });
    const task = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key });
    expect(task.body.task_progress).toEqual({ steps_done: 3, steps_total: 3, current_step: null });
  });

  it('reports steps done / total and the current step while it runs (async, task-query and its events)', async () => {
    if (!t) return;
    const before = server.requests.filter((q) => q.path === '/hold').length;
    const sub = await send(t, 'POST', '/v1/workflow/wf-hold/async', { key, body: ask('text', { user: 'bo' }) });
    expect(sub.status).toBe(200);
    await server.arrived('/hold', before + 1);
    const running = await send(t, 'GET', `/v1/task-query/${sub.body.task_number}`, { key });
    expect(running.body).toMatchObject({ status: '执行中', task_progress: { steps_done: 1, steps_total: 3, current_step: 'saved' } });

    const events: EventSourceMessage[] = [];
    const stream = readSse(await openStream(t, `/v1/task-query/${sub.body.task_number}/events`, key), (e) => {
      events.push(e);
      if (events.length === 1) server.release();
    });
    await stream;
    const data = events.map((e) => JSON.parse(e.data));
    expect(data[0]).toMatchObject({ status: '执行中', task_progress: { steps_done: 1, current_step: 'saved' } });
    expect(data.map((d) => d.task_progress?.current_step)).toContain('report');
    expect(data.at(-1)).toMatchObject({ status: '已完成', task_progress: { steps_done: 3, steps_total: 3, current_step: null }, task_result: { choices: [{ message: { content: 'held: true' } }] } });
  });

  it('fails the task 已报错 naming the failing step in comments (async), and answers 503 with it (sync)', async () => {
    if (!t) return;
    const sub = await send(t, 'POST', '/v1/workflow/wf-broken/async', { key, body: ask('text', { user: 'cy' }) });
    const failed = await waitForStatus(t, key, sub.body.task_number, ['已完成', '已报错']);
    const comments = `workflow step saved (http) failed: POST ${server.url}/broken answered HTTP 500: tool exploded`;
    expect(failed).toMatchObject({ status: '已报错', comments, task_progress: { steps_done: 1, steps_total: 3, current_step: 'saved' } });
    const sync = await send(t, 'POST', '/v1/workflow/wf-broken/sync', { key, body: ask('text', { user: 'cy' }) });
    expect(sync.status).toBe(503);
    expect(sync.body.detail).toBe(comments);
    const modelFails = await send(t, 'POST', '/v1/workflow/wf-save/sync', { key, body: ask('text', { user: 'cy', echo_error: 'no model' }) });
    expect(modelFails.body.detail).toBe('workflow step summary (model) failed: echo provider failed as asked: no model');
  });

  it('answers 422 naming a call_params variable the steps use and the request lacks', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/workflow/wf-save/sync', { key, body: ask('text') });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body', 'call_params', 'user'], msg: 'missing workflow variable call_params.user', type: 'missing' }]);
  });

  it('streams the last step: live when it is a model step, in one piece otherwise', async () => {
    if (!t) return;
    const piece = await readSse(await openStream(t, '/v1/workflow/wf-save/sync', key, { ...ask('x', { user: 'dee' }), stream: true }));
    expect(piece.done).toBe(true);
    expect(piece.json.filter((c) => c.choices[0].delta.content).map((c) => c.choices[0].delta.content)).toEqual(['Saved #42 for dee: Echo: Summarise: x']);
    const live = await readSse(await openStream(t, '/v1/workflow/wf-live/sync', key, { ...ask('one two three'), stream: true }));
    expect(live.json.filter((c) => c.choices[0].delta.content).length).toBe(4);
    expect(live.json.at(-1).steps).toEqual({ question: 'one two three', answer: 'Echo: one two three' });
  });

  it('checks steps on create and update: 422 with loc into settings.steps', async () => {
    if (!t) return;
    const bad = async (stepList: unknown) => {
      const r = await send(t!, 'POST', '/v1/apps', { key: token, body: { app_id: 'wf-bad', kind: 'workflow', name: 'x', settings: { steps: stepList } } });
      expect(r.status).toBe(422);
      return locs(r.body);
    };
    expect(await bad([{ type: 'template', output: 'a', template: '{{steps.b}}' }, { type: 'template', output: 'b', template: 'x' }])).toEqual(['body.settings.steps.0.template']);
    expect(await bad([{ type: 'template', output: 'a', template: 'x' }, { type: 'template', output: 'a', template: 'y' }])).toEqual(['body.settings.steps.1.output']);
    expect(await bad([{ type: 'shell', output: 'a', command: 'rm' }])).toEqual(['body.settings.steps.0.type']);
    expect(await bad([{ type: 'model', output: 'a' }])).toEqual(['body.settings.steps.0.prompt']);
    expect(await bad([{ type: 'http', output: 'a', url: 'http://x/{{secret}}' }])).toEqual(['body.settings.steps.0.url']);
    expect(await bad([{ type: 'http', output: 'a', url: 'http://x', body: { deep: ['{{steps.zz}}'] } }])).toEqual(['body.settings.steps.0.body.deep.0']);
    expect(await bad([{ type: 'template', output: '9lives', template: 'x' }])).toEqual(['body.settings.steps.0.output']);
    expect(await bad([])).toEqual(['body.settings.steps']);
    expect(await bad('steps')).toEqual(['body.settings.steps']);
    const patched = await send(t, 'PATCH', '/v1/apps/wf-save', { key: token, body: { settings: { steps: [{ type: 'model', output: 'a', prompt: 'x', temperature: 3 }] } } });
    expect([patched.status, locs(patched.body)]).toEqual([422, ['body.settings.steps.0.temperature']]);
  });
});
