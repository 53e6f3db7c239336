import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/support/fake-openai';
import { openAiCompatibleProvider } from '../../src/providers/openai-compatible';
import { isProviderError, type ProviderCall } from '../../src/providers';

// The openai-compatible provider against a local server speaking the OpenAI protocol over a real socket.
describe('openai-compatible provider', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi({ slowChunkMs: 20 });
  });
  afterAll(async () => {
    await fake.close();
  });

  const call = (model: string, content = 'one two'): ProviderCall => ({ model, messages: [{ role: 'user', content }], temperature: 0.5, maxTokens: 50, callParams: {}, settings: {} });
  const live = () => new AbortController().signal;

  it('answers a non-streamed completion with the upstream usage, sending key and parameters', async () => {
    const provider = openAiCompatibleProvider({ baseUrl: `${fake.baseUrl}/`, apiKey: 'sk-upstream' });
    const reply = await provider.chat(call('fake-model'), { signal: live(), timeoutMs: 5_000 });
    expect(reply).toEqual({ content: 'Fake reply to: one two', model: 'fake-model', finishReason: 'stop', usage: { prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 } });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
    expect(sent.body).toMatchObject({ model: 'fake-model', temperature: 0.5, max_tokens: 50, stream: false });
  });

  it('streams the deltas as they come and reads the usage chunk', async () => {
    const deltas: string[] = [];
    const provider = openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: '' });
    const reply = await provider.chat(call('fake-model', 'a b'), { signal: live(), timeoutMs: 5_000, onDelta: (d) => void deltas.push(d) });
    expect(deltas.join('')).toBe('Fake reply to: a b');
    expect(deltas.length).toBeGreaterThan(3);
    expect(reply.usage.completion_tokens).toBe(5);
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('turns an upstream HTTP error into a ProviderError quoting the upstream message', async () => {
    const err = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: '' }).chat(call('fake-error'), { signal: live(), timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(isProviderError(err)).toBe(true);
    expect((err as Error).message).toBe('upstream returned HTTP 500: the fake upstream broke');
  });

  it('turns an error chunk mid-stream into a ProviderError', async () => {
    const err = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: '' }).chat(call('fake-stream-error'), { signal: live(), timeoutMs: 5_000, onDelta: () => undefined }).catch((e: unknown) => e);
    expect(isProviderError(err) && err.reason === 'upstream' && err.message.includes('mid-stream')).toBe(true);
  });

  it('gives up on an upstream that does not answer, and closes the connection', async () => {
    const aborted = fake.aborted;
    const err = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: '' }).chat(call('fake-hang'), { signal: live(), timeoutMs: 200 }).catch((e: unknown) => e);
    expect(isProviderError(err) && err.reason === 'timeout').toBe(true);
    expect((err as Error).message).toBe('upstream did not answer within 200 ms');
    await fake.waitForAborts(aborted + 1);
  });

  it("aborts the upstream request when the caller's signal fires mid-stream", async () => {
    const aborted = fake.aborted;
    const controller = new AbortController();
    let seen = 0;
    const err = await openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: '' })
      .chat(call('fake-slow-stream'), {
        signal: controller.signal,
        timeoutMs: 10_000,
        onDelta: () => {
          if (++seen === 3) controller.abort(new Error('caller left'));
        },
      })
      .catch((e: unknown) => e);
    expect(isProviderError(err)).toBe(false);
    await fake.waitForAborts(aborted + 1);
    expect(fake.aborted).toBe(aborted + 1);
  });

  it('reports an unreachable upstream', async () => {
    const err = await openAiCompatibleProvider({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: '' }).chat(call('x'), { signal: live(), timeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(isProviderError(err) && err.reason === 'upstream' && err.message.includes('unreachable')).toBe(true);
  });
});
