import { TASK_KINDS } from '@tollgate/kit';
import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { settledUsedQuota, usedQuota } from './passthrough-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

// Synchronous execution through the gateway: completion JSON and SSE streams, the openai-compatible
// provider against a local OpenAI-protocol server, the /v1/agent/ variant, and bad input.
describe('sync execution', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  let key: string;
  let token: string;
  let keyId: number;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    fake = await startFakeOpenAi({ slowChunkMs: 30 });
    ({ key, token, keyId } = await newAccountWithKey(t));
    const app = (id: string, model: string, timeout_ms = 0) =>
      send(t!, 'POST', '/v1/apps', { key: token, body: { app_id: id, kind: 'chatbot', name: id, provider: 'openai-compatible', model, base_url: fake.baseUrl, api_key: 'sk-upstream', timeout_ms } });
    for (const r of await Promise.all([app('up-ok', 'fake-model'), app('up-error', 'fake-error'), app('up-hang', 'fake-hang', 300), app('up-slow', 'fake-slow-stream'), app('up-stream-error', 'fake-stream-error'), app('up-nul', 'fake-nul'), app('up-bad-usage', 'fake-bad-usage'), app('up-number', 'fake-number-content'), app('up-broken', 'fake-broken')])) {
      if (r.status !== 200) throw new Error(`app create failed: ${r.status} ${r.text}`);
    }
  });
  afterAll(async () => {
    await fake?.close();
    await t?.stop();
  });

  describe.each(TASK_KINDS)('the demo %s app', (kind) => {
    it('answers the completion JSON', async () => {
      if (!t) return;
      const r = await send(t, 'POST', `/v1/${kind}/demo-${kind}/sync`, { key, body: { ...hello('tell me'), temperature: 0.2, max_tokens: 10 } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        object: 'chat.completion',
        model: 'echo-1',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: tell me' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
      });
      expect(typeof r.body.id).toBe('string');
      expect(Number.isInteger(r.body.created)).toBe(true);
      expect(r.headers.get('x-task-number')).toBe(r.body.task_number);
      const task = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key });
      expect(task.body).toMatchObject({ status: '已完成', kind, app_id: `demo-${kind}`, mode: 'sync', task_result: { choices: [{ message: { content: 'Echo: tell me' } }] } });
    });

    it('streams chunks as server-sent events, ending with [DONE]', async () => {
      if (!t) return;
      const res = await openStream(t, `/v1/${kind}/demo-${kind}/sync`, key, { ...hello('one two three'), stream: true });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const sse = await readSse(res);
      expect(sse.done).toBe(true);
      expect(sse.json.every((c) => c.object === 'chat.completion.chunk' && c.id === sse.json[0].id && c.model === 'echo-1')).toBe(true);
      expect(sse.json.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Echo: one two three');
      expect(sse.json.filter((c) => c.choices[0].delta.content).length).toBeGreaterThanOrEqual(4);
      expect(sse.json.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
      expect(sse.json.at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }], usage: { completion_tokens: 4 } });
    });
  });

  describe('openai-compatible app', () => {
    it('answers non-streamed through the upstream', async () => {
      if (!t) return;
      const r = await send(t, 'POST', '/v1/chatbot/up-ok/sync', { key, body: hello('ping') });
      expect(r.status).toBe(200);
      expect(r.body.choices[0].message.content).toBe('Fake reply to: ping');
      expect(r.body.usage).toEqual({ prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 });
      expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-upstream');
    });

    it('keeps an upstream answer with NUL characters, which PostgreSQL cannot store, as U+FFFD: sync, streamed and async', async () => {
      if (!t) return;
      const sync = await send(t, 'POST', '/v1/chatbot/up-nul/sync', { key, body: hello('nul') });
      expect(sync.status).toBe(200);
      expect(sync.body.choices[0].message.content).toBe('Fake\uFFFDreply to: nul\uFFFD');
      const stored = await send(t, 'GET', `/v1/task-query/${sync.body.task_number}`, { key });
      expect(stored.body).toMatchObject({ status: '已完成', task_result: { choices: [{ message: { content: 'Fake\uFFFDreply to: nul\uFFFD' } }] } });
      const sse = await readSse(await openStream(t, '/v1/chatbot/up-nul/sync', key, { ...hello('nul'), stream: true }));
      expect(sse.done).toBe(true);
      expect(sse.json.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Fake\uFFFDreply to: nul\uFFFD');
      const submitted = await send(t, 'POST', '/v1/chatbot/up-nul/async', { key, body: hello('nul') });
      expect(submitted.status).toBe(200);
      const done = await waitForStatus(t, key, submitted.body.task_number, ['已完成', '已报错']);
      expect(done).toMatchObject({ status: '已完成', task_result: { choices: [{ message: { content: 'Fake\uFFFDreply to: nul\uFFFD' } }] } });
    });

    it('bills a word count, once, when the upstream reports a usage no one should bill (negative, beyond 64 bits)', async () => {
      if (!t) return;
      const me = { id: keyId, token, key };
      const before = await usedQuota(t, me);
      const r = await send(t, 'POST', '/v1/chatbot/up-bad-usage/sync', { key, body: hello('count me') });
      expect(r.status).toBe(200);
      expect(r.body.usage).toEqual({ prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 });
      expect(await settledUsedQuota(t, me, before + 1)).toBe(before + 1);
      const submitted = await send(t, 'POST', '/v1/chatbot/up-bad-usage/async', { key, body: hello('count me') });
      expect(await waitForStatus(t, key, submitted.body.task_number, ['已完成', '已报错'])).toMatchObject({ status: '已完成' });
      expect(await settledUsedQuota(t, me, before + 2)).toBe(before + 2);
    });

    it('fails an upstream answer that is not text, or breaks off midway, as the upstream failure it is (503, 已报错, refunded)', async () => {
      if (!t) return;
      const me = { id: keyId, token, key };
      const before = await usedQuota(t, me);
      const number = await send(t, 'POST', '/v1/chatbot/up-number/sync', { key, body: hello() });
      expect(number.status).toBe(503);
      expect(number.body.detail).toBe("upstream answer's message.content is not text (number)");
      const broken = await send(t, 'POST', '/v1/chatbot/up-broken/sync', { key, body: hello() });
      expect(broken.status).toBe(503);
      expect(broken.body.detail).toMatch(/^upstream connection broke off during the answer: /);
      const sse = await readSse(await openStream(t, '/v1/chatbot/up-broken/sync', key, { ...hello(), stream: true }));
      expect(sse.done).toBe(false);
      expect(sse.json.at(-1)).toEqual({ error: { message: expect.stringMatching(/^upstream connection broke off during the answer: /), type: 'unavailable', code: 503 } });
      const submitted = await send(t, 'POST', '/v1/chatbot/up-broken/async', { key, body: hello() });
      expect(await waitForStatus(t, key, submitted.body.task_number, ['已完成', '已报错'])).toMatchObject({ status: '已报错', comments: expect.stringMatching(/^upstream connection broke off/) });
      // The streamed one delivered content before it broke: as any stream ending in an error, it is refunded.
      expect(await settledUsedQuota(t, me, before)).toBe(before);
    });

    it('streams the upstream stream', async () => {
      if (!t) return;
      const sse = await readSse(await openStream(t, '/v1/chatbot/up-ok/sync', key, { ...hello('ping pong'), stream: true }));
      expect(sse.done).toBe(true);
      expect(sse.json.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Fake reply to: ping pong');
    });

    it('turns an upstream error into 503 and 已报错 with the upstream message', async () => {
      if (!t) return;
      const r = await send(t, 'POST', '/v1/chatbot/up-error/sync', { key, body: hello() });
      expect(r.status).toBe(503);
      expect(r.body.detail).toBe('upstream returned HTTP 500: the fake upstream broke');
      const listed = await send(t, 'POST', '/v1/task-query/list', { key, body: { app_id: 'up-error' } });
      expect(listed.body.items[0]).toMatchObject({ status: '已报错', comments: 'upstream returned HTTP 500: the fake upstream broke' });
    });

    it('answers a stream that fails before any content with an HTTP error status and {detail}, not an event stream', async () => {
      if (!t) return;
      const res = await openStream(t, '/v1/chatbot/up-error/sync', key, { ...hello(), stream: true });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ detail: 'upstream returned HTTP 500: the fake upstream broke', request_id: expect.any(String) });
    });

    it('ends a stream that fails after content with an error event instead of [DONE]', async () => {
      if (!t) return;
      const sse = await readSse(await openStream(t, '/v1/chatbot/up-stream-error/sync', key, { ...hello(), stream: true }));
      expect(sse.status).toBe(200);
      expect(sse.done).toBe(false);
      expect(sse.json[0]).toMatchObject({ choices: [{ delta: { role: 'assistant' } }] });
      expect(sse.json.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('partial ');
      expect(sse.json.at(-1)).toEqual({ error: { message: expect.stringMatching(/broke mid-stream/), type: 'unavailable', code: 503 } });
    });

    it('turns an upstream that never answers into 504 and 已报错, without hanging', async () => {
      if (!t) return;
      const before = await usedQuota(t, { id: keyId, token, key });
      const r = await send(t, 'POST', '/v1/chatbot/up-hang/sync', { key, body: hello() });
      expect(r.status).toBe(504);
      expect(r.body.detail).toBe('upstream did not answer within 300 ms');
      const listed = await send(t, 'POST', '/v1/task-query/list', { key, body: { app_id: 'up-hang' } });
      expect(listed.body.items[0]).toMatchObject({ status: '已报错', comments: 'upstream did not answer within 300 ms' });
      // A run that failed on the upstream's side is refunded: nothing is charged.
      await new Promise((r) => setTimeout(r, 300));
      expect(await usedQuota(t, { id: keyId, token, key })).toBe(before);
    });

    // The upstream streams forever: chunks reaching the client at all prove they are flushed as produced.
    it('delivers chunks as produced, aborts the upstream call when the client closes the stream, and ends the task 已取消', async () => {
      if (!t) return;
      const aborted = fake.aborted;
      const before = await usedQuota(t, { id: keyId, token, key });
      const controller = new AbortController();
      const res = await openStream(t, '/v1/chatbot/up-slow/sync', key, { ...hello(), stream: true }, controller.signal);
      const taskNumber = res.headers.get('x-task-number')!;
      let contentChunks = 0;
      await readSse(res, (e) => {
        if (e.data.includes('slow')) contentChunks += 1;
        if (contentChunks === 2) controller.abort();
      }).catch(() => undefined);
      await fake.waitForAborts(aborted + 1);
      const task = await waitForStatus(t, key, taskNumber, ['已取消', '已完成', '已报错'], { sync: true });
      expect(task.status).toBe('已取消');
      // The client left after content was delivered: the execution is charged once (1.0 per execution).
      expect(await settledUsedQuota(t, { id: keyId, token, key }, before + 1)).toBe(before + 1);
    });
  });

  describe('POST /v1/agent/ (second variant)', () => {
    it('answers the completion with wait_response true, from call_params.query', async () => {
      if (!t) return;
      const r = await send(t, 'POST', '/v1/agent/', { key, body: { app_id: 'demo-agent', wait_response: true, call_params: { query: 'via variant' } } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Echo: via variant' } }] });
    });

    it('submits with wait_response false and takes the key from the body when no header is sent', async () => {
      if (!t) return;
      const r = await send(t, 'POST', '/v1/agent/', { body: { app_id: 'demo-agent', api_key: key, wait_response: false, call_params: { messages: [{ role: 'user', content: 'queued' }] } } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: '等待中' });
      const done = await waitForStatus(t, key, r.body.task_number, ['已完成']);
      expect(done.task_result.choices[0].message.content).toBe('Echo: queued');
    });

    it('refuses a body api_key that differs from the Authorization header, a missing key, and another kind’s app', async () => {
      if (!t) return;
      const other = await newAccountWithKey(t);
      expect((await send(t, 'POST', '/v1/agent/', { key, body: { app_id: 'demo-agent', api_key: other.key, call_params: { query: 'x' } } })).status).toBe(401);
      expect((await send(t, 'POST', '/v1/agent/', { body: { app_id: 'demo-agent', call_params: { query: 'x' } } })).status).toBe(401);
      // Longer than any key: refused as a field (the limits table), with or without the header.
      for (const withHeader of [true, false]) {
        const long = await send(t, 'POST', '/v1/agent/', { key: withHeader ? key : undefined, body: { app_id: 'demo-agent', api_key: `ak-${'x'.repeat(5_000)}`, call_params: { query: 'x' } } });
        expect({ withHeader, status: long.status, loc: long.body.detail?.[0]?.loc }).toEqual({ withHeader, status: 422, loc: ['body', 'api_key'] });
      }
      expect((await send(t, 'POST', '/v1/agent/', { key, body: { app_id: 'demo-chatbot', call_params: { query: 'x' } } })).status).toBe(404);
    });
  });

  describe('bad input', () => {
    const path = '/v1/agent/demo-agent/sync';
    const loc = async (body: unknown) => {
      const r = await send(t!, 'POST', path, { key, body });
      expect(r.status).toBe(422);
      return r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    };

    it('answers 422 with loc ending in the field', async () => {
      if (!t) return;
      expect(await loc({ ...hello(), temperature: 3 })).toEqual(['body.temperature']);
      expect(await loc({ ...hello(), temperature: -0.1 })).toEqual(['body.temperature']);
      expect(await loc({ ...hello(), temperature: '1' })).toEqual(['body.temperature']);
      expect(await loc({ messages: [{ role: 'robot', content: 'x' }] })).toEqual(['body.messages.0.role']);
      expect(await loc({ messages: [{ role: 'user', content: 5 }] })).toEqual(['body.messages.0.content']);
      expect(await loc({ messages: [] })).toEqual(['body.messages']);
      expect(await loc({})).toEqual(['body.messages']);
      expect(await loc({ messages: 'hello' })).toEqual(['body.messages']);
      expect(await loc({ ...hello(), max_tokens: 0 })).toEqual(['body.max_tokens']);
      expect(await loc({ ...hello(), max_tokens: 2.5 })).toEqual(['body.max_tokens']);
      expect(await loc({ ...hello(), stream: 'yes' })).toEqual(['body.stream']);
      expect(await loc({ ...hello(), call_params: [1] })).toEqual(['body.call_params']);
      expect(await loc({ ...hello(), call_params: { echo_delay_ms: -5 } })).toEqual(['body.call_params.echo_delay_ms']);
      expect(await loc({ ...hello(), app_id: 'demo-chatbot' })).toEqual(['body.app_id']);
    });

    it('answers 422 for malformed JSON and a bad Idempotency-Key, 413 for a huge body', async () => {
      if (!t) return;
      const malformed = await send(t, 'POST', path, { key, raw: '{"messages": [' });
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail[0].loc).toEqual(['body']);
      const longKey = await send(t, 'POST', path, { key, body: hello(), headers: { 'idempotency-key': 'k'.repeat(256) } });
      expect(longKey.status).toBe(422);
      expect(longKey.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
      const huge = await send(t, 'POST', path, { key, body: hello('x'.repeat(2 * 1024 * 1024)) });
      expect(huge.status).toBe(413);
      expect(typeof huge.body.detail).toBe('string');
    });

    it('answers 404 for an unknown app and for an app of another kind, and 401 without a key', async () => {
      if (!t) return;
      expect((await send(t, 'POST', '/v1/agent/no-such-app/sync', { key, body: hello() })).status).toBe(404);
      const otherKind = await send(t, 'POST', '/v1/agent/demo-chatbot/sync', { key, body: hello() });
      expect(otherKind.status).toBe(404);
      expect(otherKind.body.detail).toBe('app demo-chatbot not found for kind agent');
      expect((await send(t, 'POST', '/v1/nokind/demo-agent/sync', { key, body: hello() })).status).toBe(404);
      expect((await send(t, 'POST', path, { body: hello() })).status).toBe(401);
    });
  });
});
