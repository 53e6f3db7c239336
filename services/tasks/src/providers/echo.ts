import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage } from '../domain/types';
import { lastUserIndex, nextToolCall, toolResultsSince } from './echo-directives';
import { ProviderError, countTokens, promptTokens, withTimeout, type ChatOptions, type ChatProvider, type ProviderCall, type ProviderReply } from './types';

/** Per-chunk delay: `call_params.echo_delay_ms`, else the app's `settings.echo_delay_ms`, else none. */
export function echoDelayMs(call: Pick<ProviderCall, 'callParams' | 'settings'>): number {
  const value = call.callParams.echo_delay_ms ?? call.settings.echo_delay_ms;
  return typeof value === 'number' && value > 0 ? value : 0;
}

function lastUserContent(messages: ChatMessage[]): string {
  const at = lastUserIndex(messages);
  return at >= 0 ? messages[at].content : (messages.at(-1)?.content ?? '');
}

/** `Echo: <last user message>`, then ` | <tool> returned <result>` for each tool answer since it. */
function echoText(messages: ChatMessage[]): string {
  return [`Echo: ${lastUserContent(messages)}`, ...toolResultsSince(messages)].join(' | ');
}

/**
 * The offline provider: answers `Echo: <last user message>`, one word per chunk, counts words as tokens,
 * honours max_tokens (finish_reason `length`), waits the per-chunk delay, and fails on request
 * (`call_params.echo_error`) so every outcome can be driven without a network. When tools are offered,
 * each `call tool <name> {json args}` of the last user message becomes one tool call, in order, one per
 * reply; once they are used up it answers with the tool results appended.
 */
export const echoProvider: ChatProvider = {
  async chat(call: ProviderCall, options: ChatOptions): Promise<ProviderReply> {
    const budget = withTimeout(options.signal, options.timeoutMs);
    try {
      if (typeof call.callParams.echo_error === 'string') {
        throw new ProviderError('upstream', `echo provider failed as asked: ${call.callParams.echo_error}`);
      }
      const prompt = promptTokens(call.messages);
      const toolCall = call.tools?.length ? nextToolCall(call.messages) : null;
      if (toolCall) {
        const completion = countTokens(`${toolCall.name} ${toolCall.arguments}`);
        return { content: '', toolCalls: [toolCall], model: call.model, finishReason: 'tool_calls', usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
      }
      const words = echoText(call.messages).match(/\S+\s*/g) ?? [];
      const limit = call.maxTokens ?? Infinity;
      const chunks = words.slice(0, limit);
      const delay = echoDelayMs(call);
      let content = '';
      for (const chunk of chunks) {
        if (delay > 0) await sleep(delay, undefined, { signal: budget.signal });
        budget.signal.throwIfAborted();
        content += chunk;
        await options.onDelta?.(chunk);
      }
      return {
        content,
        model: call.model,
        finishReason: chunks.length < words.length ? 'length' : 'stop',
        usage: { prompt_tokens: prompt, completion_tokens: chunks.length, total_tokens: prompt + chunks.length },
      };
    } catch (err) {
      if (budget.timedOut()) throw new ProviderError('timeout', `echo provider did not finish within ${options.timeoutMs} ms`);
      throw err;
    } finally {
      budget.clear();
    }
  },
};
