import { startTestSystem, type TestSystem } from '../support/system';
import { createApp, locs } from './kinds-support';
import { TASKS_TEST_ENV, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

const hello = (call_params?: Record<string, unknown>) => ({ messages: [{ role: 'user', content: 'hello world' }], ...(call_params && { call_params }) });

// The aiapp kind: the app's prompt template filled from call_params, one model call.
describe('aiapp kind', () => {
  let t: TestSystem | null;
  let key: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    ({ key, token } = await newAccountWithKey(t));
    await createApp(t, token, { app_id: 'translate', kind: 'aiapp', settings: { template: 'Translate to {{lang}} for {{ user.name }}: {{input}}' } });
    await createApp(t, token, { app_id: 'plain', kind: 'aiapp' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('fills the template from call_params ({{input}} is the last user message) and makes one model call', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/aiapp/translate/sync', { key, body: hello({ lang: 'French', user: { name: 'Ann' } }) });
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toBe('Echo: Translate to French for Ann: hello world');
    expect(r.body.usage.prompt_tokens).toBe(7);
  });

  it('renders non-string values as JSON and lets call_params.input replace the message', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/aiapp/translate/sync', { key, body: hello({ lang: ['fr', 'de'], user: { name: 7 }, input: 'bonjour' }) });
    expect(r.body.choices[0].message.content).toBe('Echo: Translate to ["fr","de"] for 7: bonjour');
  });

  it('answers 422 naming every missing variable, sync and async, without running anything', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/aiapp/translate/sync', { key, body: hello({ lang: 'French' }) });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body', 'call_params', 'user', 'name'], msg: 'missing template variable user.name', type: 'missing' }]);
    const none = await send(t, 'POST', '/v1/aiapp/translate/async', { key, body: hello() });
    expect(none.status).toBe(422);
    expect(locs(none.body)).toEqual(['body.call_params.lang', 'body.call_params.user.name']);
    expect(none.body.detail.map((d: { msg: string }) => d.msg)).toEqual(['missing template variable lang', 'missing template variable user.name']);
    const listed = await send(t, 'POST', '/v1/task-query/list', { key, body: { app_id: 'translate' } });
    expect(listed.body.items.every((i: { status: string }) => i.status === '已完成')).toBe(true);
  });

  it('runs async and streamed like the other kinds', async () => {
    if (!t) return;
    const sub = await send(t, 'POST', '/v1/aiapp/translate/async', { key, body: hello({ lang: 'German', user: { name: 'Bo' } }) });
    const done = await waitForStatus(t, key, sub.body.task_number, ['已完成', '已报错']);
    expect(done.task_result.choices[0].message.content).toBe('Echo: Translate to German for Bo: hello world');
    const sse = await readSse(await openStream(t, '/v1/aiapp/translate/sync', key, { ...hello({ lang: 'Dutch', user: { name: 'Cy' } }), stream: true }));
    expect(sse.done).toBe(true);
    expect(sse.json.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Echo: Translate to Dutch for Cy: hello world');
  });

  it('is a plain chat call without a template', async () => {
    if (!t) return;
    const r = await send(t, 'POST', '/v1/aiapp/plain/sync', { key, body: hello() });
    expect(r.body.choices[0].message.content).toBe('Echo: hello world');
  });

  it('refuses a malformed template on create and update with 422 at settings.template', async () => {
    if (!t) return;
    for (const template of ['{{ two words }}', 'open {{ name', '', 5]) {
      const r = await send(t, 'POST', '/v1/apps', { key: token, body: { app_id: 'bad-tpl', kind: 'aiapp', name: 'x', settings: { template } } });
      expect([r.status, locs(r.body)]).toEqual([422, ['body.settings.template']]);
    }
    const patched = await send(t, 'PATCH', '/v1/apps/translate', { key: token, body: { settings: { template: '{{.}}' } } });
    expect([patched.status, locs(patched.body)]).toEqual([422, ['body.settings.template']]);
  });
});
