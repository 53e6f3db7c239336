import type { ChatMessage, Usage } from '../domain/types';
import type { ProviderReply, ToolSpec } from '../providers';
import type { ExecutionInput, ExecutionIO } from './types';

export interface ModelCall {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Overrides of the request's own values (a workflow step's). */
  model?: string;
  maxTokens?: number;
  temperature?: number;
  /** Streamed fragments; none: not streamed. */
  onDelta?: (text: string) => Promise<void>;
}

/** One model call with the request's parameters, the app's model, settings and budget. */
export function callModel({ app, request }: ExecutionInput, io: ExecutionIO, call: ModelCall): Promise<ProviderReply> {
  return io.provider.chat(
    {
      model: call.model || request.model || app.model,
      messages: call.messages,
      tools: call.tools,
      temperature: call.temperature ?? request.temperature,
      maxTokens: call.maxTokens ?? request.max_tokens,
      callParams: request.call_params,
      settings: app.settings,
    },
    { signal: io.signal, timeoutMs: io.timeoutMs, onDelta: call.onDelta },
  );
}

/** The app's system prompt (when it has one) before the given turns. */
export const withSystemPrompt = (systemPrompt: string, messages: ChatMessage[]): ChatMessage[] => (systemPrompt ? [{ role: 'system', content: systemPrompt }, ...messages] : messages);

export const noUsage = (): Usage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export function addUsage(total: Usage, more: Usage): Usage {
  return { prompt_tokens: total.prompt_tokens + more.prompt_tokens, completion_tokens: total.completion_tokens + more.completion_tokens, total_tokens: total.total_tokens + more.total_tokens };
}

/** The text of the last user turn ('' when there is none): a template's `{{input}}`. */
export function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i].content;
  return '';
}
