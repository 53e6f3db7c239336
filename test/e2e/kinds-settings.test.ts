import { startTestSystem, type TestSystem } from '../support/system';
import { locs } from './kinds-support';
import { TASKS_TEST_ENV, newAccountWithKey, send } from './tasks-support';

// Each kind's settings are checked when an app is created or changed: 422 with loc into settings.
describe('kind settings', () => {
  let t: TestSystem | null;
  let token: string;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    ({ token } = await newAccountWithKey(t));
  });
  afterAll(async () => {
    await t?.stop();
  });

  const create = (kind: string, settings: unknown, app_id = `s-${kind}`) => send(t!, 'POST', '/v1/apps', { key: token, body: { app_id, kind, name: 'x', settings } });
  const tool = (fields: Record<string, unknown> = {}) => ({ name: 'weather', url: 'https://tools.example.com/weather', ...fields });

  it.each([
    [{ tools: [tool({ url: 'ftp://x' })] }, 'body.settings.tools.0.url'],
    [{ tools: [tool({ url: 'builtin:nope' })] }, 'body.settings.tools.0.url'],
    [{ tools: [tool({ name: 'has space' })] }, 'body.settings.tools.0.name'],
    [{ tools: [tool(), tool()] }, 'body.settings.tools.1.name'],
    [{ tools: [tool({ parameters: { type: 'string' } })] }, 'body.settings.tools.0.parameters.type'],
    [{ tools: [tool({ method: 'TRACE' })] }, 'body.settings.tools.0.method'],
    [{ tools: [tool({ headers: { 'x-key': 5 } })] }, 'body.settings.tools.0.headers.x-key'],
    [{ tools: [tool({ timeout_ms: 0 })] }, 'body.settings.tools.0.timeout_ms'],
    [{ tools: { weather: tool() } }, 'body.settings.tools'],
    [{ max_steps: 0 }, 'body.settings.max_steps'],
    [{ max_steps: 51 }, 'body.settings.max_steps'],
    [{ max_steps: 2.5 }, 'body.settings.max_steps'],
    [{ tool_timeout_ms: -1 }, 'body.settings.tool_timeout_ms'],
  ])('refuses agent settings %j at %s', async (settings, loc) => {
    if (!t) return;
    const r = await create('agent', settings);
    expect(r.status).toBe(422);
    expect(locs(r.body)).toEqual([loc]);
  });

  it('refuses bad chatbot settings and bad settings on update', async () => {
    if (!t) return;
    for (const history_window of [-1, 501, 'ten']) {
      const r = await create('chatbot', { history_window });
      expect([r.status, locs(r.body)]).toEqual([422, ['body.settings.history_window']]);
    }
    const ok = await create('agent', { tools: [tool({ parameters: { type: 'object', properties: { city: { type: 'string' } } } })], max_steps: 3 }, 'good-agent');
    expect(ok.status).toBe(200);
    expect(ok.body.settings).toEqual({ tools: [tool({ parameters: { type: 'object', properties: { city: { type: 'string' } } } })], max_steps: 3 });
    const patched = await send(t, 'PATCH', '/v1/apps/good-agent', { key: token, body: { settings: { tools: [tool({ url: 'not a url' })] } } });
    expect([patched.status, locs(patched.body)]).toEqual([422, ['body.settings.tools.0.url']]);
    expect((await send(t, 'GET', '/v1/apps/good-agent', { key: token })).body.settings.max_steps).toBe(3);
  });

  it('seeds the demo apps with settings that show each kind', async () => {
    if (!t) return;
    const demo = async (id: string) => (await send(t!, 'GET', `/v1/apps/${id}`, { key: token })).body.settings;
    expect((await demo('demo-agent')).tools.map((x: { name: string; url: string }) => [x.name, x.url])).toEqual([
      ['current_time', 'builtin:time'],
      ['echo', 'builtin:echo'],
    ]);
    expect(await demo('demo-chatbot')).toEqual({ history_window: 20 });
    expect(await demo('demo-aiapp')).toEqual({ template: '{{input}}' });
    expect((await demo('demo-workflow')).steps.map((s: { output: string }) => s.output)).toEqual(['question', 'answer']);
  });
});
