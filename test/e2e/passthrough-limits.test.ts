import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { BODY_LIMIT, accountKey, chat, clientFor, passthroughEnv, post, settledUsedQuota, usedQuota, type KeyOf } from './passthrough-support';

// The passthrough's checks and failures: channels both ways, missing keys, body size, an
// unconfigured provider, an unreachable or silent upstream, and the refunds that go with them.
describe('provider passthrough: access, limits and upstream failures', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  let provider: KeyOf;
  let platform: KeyOf;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    t = await startTestSystem(await passthroughEnv(fake));
    if (!t) return;
    provider = await accountKey(t, 'provider:fake');
    platform = await accountKey(t, 'platform');
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  const upstreamSaw = (content: string) => fake.requests.some((r) => JSON.stringify(r.body).includes(content));

  describe('channels', () => {
    it('never forwards a platform key: its /v1/chat/completions runs apps, so a provider model name is an unknown model', async () => {
      if (!t) return;
      const r = await post(t, '/v1/chat/completions', platform.key, chat('platform tries'));
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: { code: 'model_not_found' }, detail: expect.stringContaining('does not exist') });
      const models = await fetch(`${t.http}/v1/models`, { headers: { authorization: `Bearer ${platform.key}` } });
      expect(models.status).toBe(200);
      expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).not.toContain('fake-model');
      expect(upstreamSaw('platform tries')).toBe(false);
    });

    it('never forwards a custom-channel key either', async () => {
      if (!t) return;
      const custom = await accountKey(t, 'custom:agent');
      const r = await post(t, '/v1/chat/completions', custom.key, chat('custom tries'));
      expect(r.status).toBe(404);
      expect(upstreamSaw('custom tries')).toBe(false);
    });

    it('refuses a provider key on a task kind with 403, where a platform key runs', async () => {
      if (!t) return;
      const body = { messages: [{ role: 'user', content: 'hi' }] };
      expect(await post(t, '/v1/agent/demo-agent/sync', provider.key, body)).toEqual({ status: 403, body: { detail: 'a provider:fake key cannot run agent tasks' } });
      expect((await post(t, '/v1/chatbot/demo-chatbot/async', provider.key, body)).status).toBe(403);
      expect((await post(t, '/v1/agent/demo-agent/sync', platform.key, body)).status).toBe(200);
    });

    it('answers 503 for a provider this gateway has no upstream for', async () => {
      if (!t) return;
      const stranger = await accountKey(t, 'provider:nowhere', '1');
      const r = await post(t, '/v1/chat/completions', stranger.key, chat('nowhere'));
      expect(r).toEqual({ status: 503, body: { detail: 'provider "nowhere" of this API key is not configured on this gateway', request_id: expect.any(String) } });
      expect(await usedQuota(t, stranger)).toBe(0);
    });
  });

  describe('authentication', () => {
    it('answers 401 without a key, with a malformed key and with an unknown key', async () => {
      if (!t) return;
      // Before the key is known its failure is written for OpenAI clients too: the error object beside the same detail.
      expect(await post(t, '/v1/chat/completions', undefined, chat('no key'))).toEqual({
        status: 401,
        body: { error: expect.objectContaining({ code: 'invalid_api_key', message: expect.stringContaining('missing Authorization header') }), detail: expect.stringContaining('missing Authorization header') },
      });
      expect((await post(t, '/v1/chat/completions', 'sk-not-ours', chat('bad key'))).status).toBe(401);
      expect((await post(t, '/v1/chat/completions', `ak-${'x'.repeat(32)}`, chat('unknown key'))).status).toBe(401);
      expect((await fetch(`${t.http}/v1/models`)).status).toBe(401);
      expect(upstreamSaw('no key') || upstreamSaw('bad key') || upstreamSaw('unknown key')).toBe(false);
    });

    it('refuses a key whose quota is used up with 429', async () => {
      if (!t) return;
      const small = await accountKey(t, 'provider:fake', '1');
      await clientFor(t, small.key).chat.completions.create(chat('spend it'));
      expect(await settledUsedQuota(t, small, 1)).toBe(1);
      const r = await post(t, '/v1/chat/completions', small.key, chat('over quota'));
      expect(r.status).toBe(429);
      expect(upstreamSaw('over quota')).toBe(false);
    });
  });

  describe('body size', () => {
    const huge = () => JSON.stringify({ ...chat('huge body'), padding: 'x'.repeat(BODY_LIMIT * 2) });

    it('answers 413 {detail} for a declared Content-Length over the limit, before anything else', async () => {
      if (!t) return;
      expect(await post(t, '/v1/chat/completions', provider.key, huge())).toEqual({ status: 413, body: { detail: `request body exceeds the limit of ${BODY_LIMIT} bytes` } });
      expect((await post(t, '/v1/chat/completions', undefined, huge())).status).toBe(413);
      expect(upstreamSaw('huge body')).toBe(false);
    });

    it('counts a chunked body as it streams: 413 past the limit, refunded', async () => {
      if (!t) return;
      const one = await accountKey(t, 'provider:fake', '1');
      const piece = new TextEncoder().encode('x'.repeat(16_384));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"model":"fake-model","messages":[{"role":"user","content":"chunked huge"}],"padding":"'));
          if (sent > BODY_LIMIT * 4) return controller.close();
          controller.enqueue(piece);
          sent += piece.length;
        },
      });
      const res = await fetch(`${t.http}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${one.key}` }, body, duplex: 'half' } as RequestInit);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 413, body: { detail: `request body exceeds the limit of ${BODY_LIMIT} bytes` } });
      expect(upstreamSaw('chunked huge')).toBe(false);
      const after = await clientFor(t, one.key).chat.completions.create(chat('after the 413'));
      expect(after.choices[0].message.content).toBe('Fake reply to: after the 413');
    });

    it('forwards a chunked body under the limit unchanged', async () => {
      if (!t) return;
      const json = JSON.stringify(chat('chunked but small'));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(json.slice(0, 10)));
          controller.enqueue(new TextEncoder().encode(json.slice(10)));
          controller.close();
        },
      });
      const res = await fetch(`${t.http}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${provider.key}` }, body, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('Fake reply to: chunked but small');
    });
  });

  describe('upstream failures', () => {
    it('answers 502 {detail} when the upstream is unreachable, and refunds', async () => {
      if (!t) return;
      const down = await accountKey(t, 'provider:down', '1');
      for (let i = 0; i < 2; i++) {
        const r = await post(t, '/v1/chat/completions', down.key, chat('anyone there'));
        expect(r).toEqual({ status: 502, body: { detail: 'provider "down" is unreachable or failed: ECONNREFUSED', request_id: expect.any(String) } });
      }
      expect(await usedQuota(t, down)).toBe(0);
    });

    it('answers 504 {detail} when the upstream stays silent past its timeout, and refunds', async () => {
      if (!t) return;
      const slow = await accountKey(t, 'provider:slow', '1');
      for (let i = 0; i < 2; i++) {
        const r = await post(t, '/v1/chat/completions', slow.key, chat(`hang ${i}`, 'fake-hang'));
        expect(r).toEqual({ status: 504, body: { detail: 'provider "slow" did not answer within 300 ms', request_id: expect.any(String) } });
      }
      expect(upstreamSaw('hang 1')).toBe(true);
      expect(await usedQuota(t, slow)).toBe(0);
    });

    it('refunds a request whose client left before the upstream answered', async () => {
      if (!t) return;
      const one = await accountKey(t, 'provider:fake', '1');
      const abortsBefore = fake.aborted;
      const leaving = new AbortController();
      const pending = fetch(`${t.http}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${one.key}` }, body: JSON.stringify(chat('left early', 'fake-hang')), signal: leaving.signal });
      while (!upstreamSaw('left early')) await new Promise((resolve) => setTimeout(resolve, 10));
      leaving.abort();
      await expect(pending).rejects.toThrow();
      await fake.waitForAborts(abortsBefore + 1);
      let next = await post(t, '/v1/chat/completions', one.key, chat('after leaving'));
      for (let i = 0; i < 100 && next.status === 429; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        next = await post(t, '/v1/chat/completions', one.key, chat('after leaving'));
      }
      expect(next.status).toBe(200);
      expect(await settledUsedQuota(t, one, 1)).toBe(1);
    });

    it('refunds an upstream error answer: a key with quota 1 still gets its next request', async () => {
      if (!t) return;
      const one = await accountKey(t, 'provider:fake', '1');
      const failed = await post(t, '/v1/chat/completions', one.key, chat('fail first', 'fake-error'));
      expect(failed).toEqual({ status: 500, body: { error: { message: 'the fake upstream broke', type: 'server_error' } } });
      let next = await post(t, '/v1/chat/completions', one.key, chat('then succeed'));
      for (let i = 0; i < 100 && next.status === 429; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        next = await post(t, '/v1/chat/completions', one.key, chat('then succeed'));
      }
      expect(next.status).toBe(200);
      expect(await settledUsedQuota(t, one, 1)).toBe(1);
    });
  });
});
