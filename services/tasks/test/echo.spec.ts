import { echoProvider } from '../src/providers/echo';
import { isProviderError } from '../src/providers';

const call = (content: string, extra: Partial<Parameters<typeof echoProvider.chat>[0]> = {}) => ({
  model: 'echo-1',
  messages: [
    { role: 'system' as const, content: 'be brief' },
    { role: 'user' as const, content },
  ],
  callParams: {},
  settings: {},
  ...extra,
});

describe('echo provider', () => {
  it('answers from the last user message, one word per chunk, and counts tokens', async () => {
    const deltas: string[] = [];
    const reply = await echoProvider.chat(call('one two three'), { signal: new AbortController().signal, timeoutMs: 1_000, onDelta: (d) => void deltas.push(d) });
    expect(reply.content).toBe('Echo: one two three');
    expect(deltas).toEqual(['Echo: ', 'one ', 'two ', 'three']);
    expect(reply.usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    expect(reply.finishReason).toBe('stop');
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const reply = await echoProvider.chat(call('a b c d', { maxTokens: 2 }), { signal: new AbortController().signal, timeoutMs: 1_000 });
    expect(reply.content).toBe('Echo: a ');
    expect(reply.finishReason).toBe('length');
    expect(reply.usage.completion_tokens).toBe(2);
  });

  it('fails on request with the given message', async () => {
    const err = await echoProvider.chat(call('x', { callParams: { echo_error: 'boom' } }), { signal: new AbortController().signal, timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(isProviderError(err) && err.reason === 'upstream' && err.message.includes('boom')).toBe(true);
  });

  it('stops between chunks when aborted, and times out past its budget', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const running = echoProvider.chat(call('a b c d e f', { callParams: { echo_delay_ms: 30 } }), {
      signal: controller.signal,
      timeoutMs: 5_000,
      onDelta: (d) => {
        deltas.push(d);
        if (deltas.length === 2) controller.abort(new Error('stop'));
      },
    });
    await expect(running).rejects.toBeDefined();
    expect(deltas).toHaveLength(2);

    const late = await echoProvider.chat(call('a b c d', { settings: { echo_delay_ms: 200 } }), { signal: new AbortController().signal, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(isProviderError(late) && late.reason === 'timeout').toBe(true);
  });
});
