import OpenAI from 'openai';
import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { accountKey, passthroughEnv, settledUsedQuota, usedQuota, type KeyOf } from './passthrough-support';
import { send, waitForStatus } from './tasks-support';

// Every app through the official `openai` SDK: the per-app base URL, the shared /v1/chat/completions
// and /v1/models for platform and custom keys, OpenAI error objects on those routes (and only there),
// and provider keys still passed through unchanged.
describe('apps through the OpenAI protocol', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  let platform: KeyOf;

  const sdk = (key: string, path = '/v1') => new OpenAI({ baseURL: `${t!.http}${path}`, apiKey: key, maxRetries: 0 });
  const hi = (content: string) => [{ role: 'user' as const, content }];
  /** The SDK's error of a call that must fail. */
  const failure = async (call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> => {
    try {
      await call;
    } catch (err) {
      if (err instanceof OpenAI.APIError) return err;
      throw err;
    }
    throw new Error('the call succeeded');
  };
  const upstreamSaw = (content: string) => fake.requests.some((r) => JSON.stringify(r.body).includes(content));

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    t = await startTestSystem(await passthroughEnv(fake));
    if (!t) return;
    platform = await accountKey(t, 'platform');
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  describe('the per-app base URL /v1/<kind>/<app_id>', () => {
    it('creates a completion with the SDK, recorded as a sync task of that app', async () => {
      if (!t) return;
      const c = await sdk(platform.key, '/v1/agent/demo-agent').chat.completions.create({ model: 'agent/demo-agent', messages: hi('through the sdk') });
      expect(c.object).toBe('chat.completion');
      expect(c.model).toBe('echo-1');
      expect(c.choices[0].message).toMatchObject({ role: 'assistant', content: 'Echo: through the sdk' });
      expect(c.usage?.total_tokens).toBeGreaterThan(0);
      const taskNumber = (c as unknown as { task_number: string }).task_number;
      const task = await waitForStatus(t, platform.key, taskNumber, ['已完成']);
      expect(task).toMatchObject({ kind: 'agent', app_id: 'demo-agent', mode: 'sync' });
    });

    it('streams with the SDK: chunks as the model produces them, ending cleanly', async () => {
      if (!t) return;
      const stream = await sdk(platform.key, '/v1/chatbot/demo-chatbot').chat.completions.create({ model: 'demo-chatbot', messages: hi('one two three'), stream: true });
      const parts: string[] = [];
      let finish: string | null = null;
      for await (const chunk of stream) {
        expect(chunk.object).toBe('chat.completion.chunk');
        parts.push(chunk.choices[0]?.delta?.content ?? '');
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(parts.join('')).toBe('Echo: one two three');
      expect(parts.filter(Boolean).length).toBeGreaterThanOrEqual(4);
      expect(finish).toBe('stop');
    });

    it('bills exactly as /sync does', async () => {
      if (!t) return;
      const viaSync = await accountKey(t, 'platform', '100');
      const viaSdk = await accountKey(t, 'platform', '100');
      const body = { messages: hi('same work'), max_tokens: 20 };
      expect((await send(t, 'POST', '/v1/workflow/demo-workflow/sync', { key: viaSync.key, body })).status).toBe(200);
      await sdk(viaSdk.key, '/v1/workflow/demo-workflow').chat.completions.create({ model: 'workflow/demo-workflow', ...body });
      let charged = 0;
      for (let i = 0; i < 200 && charged === 0; i++) charged = await usedQuota(t, viaSync);
      expect(charged).toBeGreaterThan(0);
      expect(await settledUsedQuota(t, viaSdk, charged)).toBe(charged);
    });

    it('takes another model name as a model override, as /sync does', async () => {
      if (!t) return;
      const c = await sdk(platform.key, '/v1/aiapp/demo-aiapp').chat.completions.create({ model: 'echo-override', messages: hi('override') });
      expect(c.model).toBe('echo-override');
      expect(c.choices[0].message.content).toBe('Echo: override');
    });

    it('reads text content parts, a developer message and max_completion_tokens', async () => {
      if (!t) return;
      const c = await sdk(platform.key, '/v1/agent/demo-agent').chat.completions.create({
        model: 'agent/demo-agent',
        messages: [
          { role: 'developer', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'two ' }, { type: 'text', text: 'parts' }] },
        ],
        max_completion_tokens: 50,
      });
      expect(c.choices[0].message.content).toBe('Echo: two parts');
    });
  });

  describe('POST /v1/chat/completions and GET /v1/models with an app key', () => {
    it('runs the app named by model <kind>/<app_id>, stream and not, without touching any provider', async () => {
      if (!t) return;
      const client = sdk(platform.key);
      const c = await client.chat.completions.create({ model: 'chatbot/demo-chatbot', messages: hi('shared route') });
      expect(c.choices[0].message.content).toBe('Echo: shared route');
      expect((c as unknown as { conversation_id?: string }).conversation_id).toEqual(expect.any(String));
      const stream = await client.chat.completions.create({ model: 'aiapp/demo-aiapp', messages: hi('shared stream'), stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('Echo: shared stream');
      expect(upstreamSaw('shared route') || upstreamSaw('shared stream')).toBe(false);
    });

    it('lists the apps the key may run as models, and retrieves one', async () => {
      if (!t) return;
      const own = await send(t, 'POST', '/v1/apps', { key: platform.token, body: { app_id: 'my-private-agent', kind: 'agent', name: 'Mine' } });
      expect(own.status).toBe(200);
      const stranger = await accountKey(t, 'platform');
      expect((await send(t, 'POST', '/v1/apps', { key: stranger.token, body: { app_id: 'their-private-bot', kind: 'chatbot', name: 'Theirs' } })).status).toBe(200);

      const ids: string[] = [];
      for await (const model of sdk(platform.key).models.list()) {
        expect(model.object).toBe('model');
        ids.push(model.id);
      }
      expect(ids).toEqual(expect.arrayContaining(['agent/demo-agent', 'workflow/demo-workflow', 'aiapp/demo-aiapp', 'chatbot/demo-chatbot', 'agent/my-private-agent']));
      expect(ids).not.toContain('chatbot/their-private-bot');

      const one = await sdk(platform.key).models.retrieve('agent/my-private-agent');
      expect(one).toMatchObject({ id: 'agent/my-private-agent', object: 'model', owned_by: expect.stringMatching(/^account:\d+$/) });
      expect((await sdk(platform.key).models.retrieve('chatbot/demo-chatbot')).owned_by).toBe('tollgate');
      const raw = await fetch(`${t.http}/v1/models/agent/demo-agent`, { headers: { authorization: `Bearer ${platform.key}` } });
      expect(raw.status).toBe(200);
      expect(((await raw.json()) as { id: string }).id).toBe('agent/demo-agent');

      const hidden = await failure(sdk(platform.key).models.retrieve('chatbot/their-private-bot'));
      expect(hidden.status).toBe(404);
      expect(hidden.code).toBe('model_not_found');
      expect((await failure(sdk(platform.key).models.retrieve('agent/demo-chatbot'))).status).toBe(404);
      expect((await failure(sdk(platform.key).models.retrieve('gpt-4o'))).status).toBe(404);
      const ran = await sdk(platform.key).chat.completions.create({ model: 'agent/my-private-agent', messages: hi('mine') });
      expect(ran.choices[0].message.content).toBe('Echo: mine');
    });

    it('lists for a custom key only the kinds of its channel, and refuses the others', async () => {
      if (!t) return;
      const custom = await accountKey(t, 'custom:agent,aiapp');
      const ids = (await sdk(custom.key).models.list()).data.map((m) => m.id);
      expect(ids).toEqual(expect.arrayContaining(['agent/demo-agent', 'aiapp/demo-aiapp']));
      expect(ids.some((id) => id.startsWith('chatbot/') || id.startsWith('workflow/'))).toBe(false);
      expect((await failure(sdk(custom.key).models.retrieve('chatbot/demo-chatbot'))).status).toBe(404);
      const refused = await failure(sdk(custom.key).chat.completions.create({ model: 'chatbot/demo-chatbot', messages: hi('not mine') }));
      expect(refused.status).toBe(403);
      expect(refused.code).toBe('permission_denied');
      expect(refused.message).toContain('cannot run chatbot tasks');
    });

    it('answers a model that is no app with 404 model_not_found naming the form to use', async () => {
      if (!t) return;
      const e = await failure(sdk(platform.key).chat.completions.create({ model: 'gpt-4o', messages: hi('which model') }));
      expect(e.status).toBe(404);
      expect(e).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found' });
      expect(e.message).toContain('<kind>/<app_id>');
      expect((await failure(sdk(platform.key).chat.completions.create({ model: 'agent/no-such-app', messages: hi('x') }))).status).toBe(404);
      expect((await failure(sdk(platform.key).chat.completions.create({ model: 'agent/demo-chatbot', messages: hi('x') }))).status).toBe(404);
    });

    it('still passes a provider key through to its provider, unchanged', async () => {
      if (!t) return;
      const provider = await accountKey(t, 'provider:fake');
      const c = await sdk(provider.key).chat.completions.create({ model: 'fake-model', messages: hi('to the provider') });
      expect(c.choices[0].message.content).toEqual(expect.any(String));
      expect(upstreamSaw('to the provider')).toBe(true);
      expect((await sdk(provider.key).models.list()).data.map((m) => m.id)).toEqual(['fake-model']);
    });
  });

  describe('errors the SDK can read', () => {
    it('says why a key with a used-up quota is refused: 429 insufficient_quota with the server text, not retried', async () => {
      if (!t) return;
      const empty = await accountKey(t, 'platform', '0');
      const e = await failure(sdk(empty.key).chat.completions.create({ model: 'agent/demo-agent', messages: hi('no money') }));
      expect(e.status).toBe(429);
      expect(e).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
      expect(e.message).toContain('insufficient quota');
      expect(e.message).not.toContain('no body');
      expect(e.headers?.get('x-should-retry')).toBe('false');

      const perApp = await failure(sdk(empty.key, '/v1/agent/demo-agent').chat.completions.create({ model: 'agent/demo-agent', messages: hi('no money') }));
      expect(perApp.status).toBe(429);
      expect(perApp.message).toContain('insufficient quota');

      const raw = await send(t, 'POST', '/v1/agent/demo-agent/chat/completions', { key: empty.key, body: { messages: hi('raw') } });
      expect(raw.body).toEqual({ error: { message: expect.stringContaining('insufficient quota'), type: 'insufficient_quota', code: 'insufficient_quota', param: null }, detail: raw.body.error.message });
    });

    it('says when the quota cannot pay for this execution (billing admission)', async () => {
      if (!t) return;
      const tiny = await accountKey(t, 'platform', '0.000001');
      const e = await failure(sdk(tiny.key).chat.completions.create({ model: 'agent/demo-agent', messages: hi('too dear') }));
      expect(e.status).toBe(429);
      expect(e.code).toBe('insufficient_quota');
      expect(e.message).toContain('insufficient quota');
    });

    it('says the key is invalid: 401 invalid_api_key on every OpenAI-style route, for any key', async () => {
      if (!t) return;
      const unknown = `ak-${'x'.repeat(32)}`;
      for (const call of [
        sdk(unknown).chat.completions.create({ model: 'agent/demo-agent', messages: hi('x') }),
        sdk(unknown, '/v1/agent/demo-agent').chat.completions.create({ model: 'agent/demo-agent', messages: hi('x') }),
        sdk(unknown).models.list(),
        sdk('sk-not-ours').chat.completions.create({ model: 'agent/demo-agent', messages: hi('x') }),
      ]) {
        const e = await failure(call);
        expect(e.status).toBe(401);
        expect(e).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
        expect(e.message).toMatch(/invalid API key/);
      }
      const none = await send(t, 'POST', '/v1/chat/completions', { body: { model: 'agent/demo-agent', messages: hi('x') } });
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ error: expect.objectContaining({ code: 'invalid_api_key', message: expect.stringContaining('missing Authorization header') }), detail: expect.stringContaining('missing Authorization header') });
    });

    it('answers a wrong method on an OpenAI-style route with 405, Allow and the OpenAI error object; a spec route keeps {detail}', async () => {
      if (!t) return;
      for (const [method, path, allow] of [
        ['GET', '/v1/chat/completions', 'POST'],
        ['DELETE', '/v1/models', 'GET'],
        ['PUT', '/v1/agent/demo-agent/chat/completions', 'POST'],
      ] as const) {
        const r = await send(t, method, path, { key: platform.key });
        expect({ path, status: r.status, allow: r.headers.get('allow') }).toEqual({ path, status: 405, allow });
        expect(r.body).toEqual({ error: { message: expect.stringContaining('not allowed'), type: 'invalid_request_error', code: 'method_not_allowed', param: null }, detail: expect.stringContaining('not allowed') });
      }
      const spec = await send(t, 'GET', '/v1/agent/demo-agent/sync', { key: platform.key });
      expect(spec.status).toBe(405);
      expect(spec.body).toEqual({ detail: expect.stringContaining('not allowed') });
    });

    it('keeps the 422 status with an invalid_request_error naming the field, and the spec detail list beside it', async () => {
      if (!t) return;
      const empty = await failure(sdk(platform.key).chat.completions.create({ model: 'agent/demo-agent', messages: [] }));
      expect(empty.status).toBe(422);
      expect(empty).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
      const raw = await send(t, 'POST', '/v1/agent/demo-agent/chat/completions', { key: platform.key, body: { messages: [{ role: 'tool', content: 'x' }] } });
      expect(raw.status).toBe(422);
      expect(raw.body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages.0.role' });
      expect(raw.body.detail[0].loc).toEqual(['body', 'messages', 0, 'role'].map(String));
      const image = await send(t, 'POST', '/v1/chat/completions', { key: platform.key, body: { model: 'agent/demo-agent', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] } });
      expect(image.status).toBe(422);
      expect(image.body.error.param).toMatch(/^messages\.0\.content/);
      for (const body of [{ model: 'agent/demo-agent', messages: hi('x'), n: 2 }, { model: 5, messages: hi('x') }, { model: 'agent/demo-agent', messages: hi('x'), temperature: 'hot' }, { messages: hi('x') }]) {
        const r = await send(t, 'POST', '/v1/chat/completions', { key: platform.key, body });
        expect({ body, status: r.status, type: r.body?.error?.type }).toEqual({ body, status: 422, type: 'invalid_request_error' });
        expect(Array.isArray(r.body.detail)).toBe(true);
      }
      const broken = await send(t, 'POST', '/v1/chat/completions', { key: platform.key, raw: '{"model": "agent/demo-agent", "messages": [' });
      expect(broken.status).toBe(422);
      expect(broken.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('malformed JSON') });
      const huge = await send(t, 'POST', '/v1/chat/completions', { key: platform.key, body: { model: `agent/${'a'.repeat(5000)}`, messages: hi('x') } });
      expect(huge.status).toBe(422);
      expect(huge.body.error.param).toBe('model');
    });

    it('is described in the OpenAPI document', async () => {
      if (!t) return;
      const doc = (await (await fetch(`${t.http}/openapi.json`)).json()) as { paths: Record<string, Record<string, { description?: string; tags?: string[]; responses: Record<string, unknown> }>> };
      for (const kind of ['agent', 'workflow', 'aiapp', 'chatbot']) expect(doc.paths[`/v1/${kind}/{app_id}/chat/completions`]?.post?.responses['429']).toBeDefined();
      expect(doc.paths['/v1/models/{model}']?.get).toBeDefined();
      expect(doc.paths['/v1/models/{kind}/{app_id}']?.get).toBeDefined();
      expect(doc.paths['/v1/chat/completions'].post.description).toContain('<kind>/<app_id>');
      expect(doc.paths['/v1/models'].get.tags).toContain('OpenAI-compatible');
    });

    it('leaves the spec routes’ bodies exactly {detail}', async () => {
      if (!t) return;
      const r = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: `ak-${'x'.repeat(32)}`, body: { messages: hi('x') } });
      expect(r).toMatchObject({ status: 401, body: { detail: 'invalid API key' } });
      expect(Object.keys(r.body)).toEqual(['detail']);
      const empty = await accountKey(t, 'platform', '0');
      const q = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: empty.key, body: { messages: hi('x') } });
      expect(q.status).toBe(429);
      expect(Object.keys(q.body)).toEqual(['detail']);
    });
  });
});
