import { APIError } from 'openai';
import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { UPSTREAM_KEY, accountKey, chat, clientFor, passthroughEnv, settledUsedQuota, type KeyOf } from './passthrough-support';

// Provider-channel keys through the gateway's passthrough, driven by the official openai client
// against a local server that speaks the OpenAI protocol.
describe('provider passthrough with the openai client', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  let k: KeyOf;

  beforeAll(async () => {
    fake = await startFakeOpenAi({ slowChunkMs: 20 });
    t = await startTestSystem(await passthroughEnv(fake));
    if (t) k = await accountKey(t, 'provider:fake');
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  const upstreamRequest = (content: string) => fake.requests.find((r) => JSON.stringify(r.body.messages).includes(content));

  it('answers a completion, and the upstream sees the provider key instead of ours', async () => {
    if (!t) return;
    const completion = await clientFor(t, k.key).chat.completions.create({ ...chat('hello non-stream'), temperature: 0.5 });
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'fake-model', choices: [{ message: { role: 'assistant', content: 'Fake reply to: hello non-stream' }, finish_reason: 'stop' }] });
    const seen = upstreamRequest('hello non-stream');
    expect(seen?.body).toEqual({ ...chat('hello non-stream'), temperature: 0.5 });
    expect(seen?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(JSON.stringify(seen?.headers)).not.toContain(k.key);
  });

  it('streams a completion as several events and assembles the content', async () => {
    if (!t) return;
    const stream = await clientFor(t, k.key).chat.completions.create({ ...chat('please stream this answer'), stream: true });
    const contents: string[] = [];
    for await (const part of stream) contents.push(part.choices[0]?.delta?.content ?? '');
    expect(contents.join('')).toBe('Fake reply to: please stream this answer');
    expect(contents.filter((c) => c !== '').length).toBeGreaterThanOrEqual(5);
    expect(upstreamRequest('please stream this answer')?.body.stream).toBe(true);
  });

  it('delivers each chunk as it comes: an endless upstream stream is read chunk by chunk, and leaving stops the upstream', async () => {
    if (!t) return;
    const abortsBefore = fake.aborted;
    const stream = await clientFor(t, k.key).chat.completions.create({ ...chat('never ending', 'fake-slow-stream'), stream: true });
    const received: string[] = [];
    for await (const part of stream) {
      received.push(part.choices[0]?.delta?.content ?? '');
      if (received.length === 4) break;
    }
    expect(received).toEqual(['', 'slow ', 'slow ', 'slow ']);
    await fake.waitForAborts(abortsBefore + 1);
    expect(fake.aborted).toBe(abortsBefore + 1);
  });

  it('serves the text/event-stream unbuffered with our request id', async () => {
    if (!t) return;
    const res = await fetch(`${t.http}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${k.key}` }, body: JSON.stringify({ ...chat('raw stream'), stream: true }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const text = await res.text();
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(upstreamRequest('raw stream')?.headers['accept-encoding']).toBe('identity');
  });

  it('lists the provider models', async () => {
    if (!t) return;
    const ids: string[] = [];
    for await (const model of clientFor(t, k.key).models.list()) ids.push(model.id);
    expect(ids).toEqual(['fake-model']);
  });

  it('passes an upstream error answer through unchanged', async () => {
    if (!t) return;
    const err = await clientFor(t, k.key).chat.completions.create(chat('break please', 'fake-error')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('the fake upstream broke');
  });

  it('sends no Authorization upstream for a provider configured without an API key', async () => {
    if (!t) return;
    const bare = await accountKey(t, 'provider:bare');
    const completion = await clientFor(t, bare.key).chat.completions.create(chat('bare provider'));
    expect(completion.choices[0].message.content).toBe('Fake reply to: bare provider');
    expect(upstreamRequest('bare provider')?.headers.authorization).toBeUndefined();
  });

  it('charges one request per call at the passthrough price', async () => {
    if (!t) return;
    const own = await accountKey(t, 'provider:fake');
    const client = clientFor(t, own.key);
    await client.chat.completions.create(chat('billed one'));
    const stream = await client.chat.completions.create({ ...chat('billed two'), stream: true });
    for await (const _ of stream) void _;
    for await (const _ of client.models.list()) void _;
    expect(await settledUsedQuota(t, own, 3)).toBe(3);
  });
});
