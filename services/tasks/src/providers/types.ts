import type { ChatMessage, ToolCall, Usage } from '../domain/types';

/** A function the model may call, offered in the OpenAI `tools` format. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ProviderCall {
  model: string;
  messages: ChatMessage[];
  /** Offered to the model; absent or empty: a plain chat call. */
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  callParams: Record<string, unknown>;
  /** The app's kind-specific settings. */
  settings: Record<string, unknown>;
}

export interface ProviderReply {
  content: string;
  /** The functions the model asked to call (finish_reason `tool_calls`); empty or absent otherwise. */
  toolCalls?: ToolCall[];
  usage: Usage;
  finishReason: string;
  model: string;
}

export interface ChatOptions {
  /** The caller's cancellation (client gone, task cancelled, lease lost). */
  signal: AbortSignal;
  /** Upstream call budget; past it the call fails with a ProviderError('timeout'). */
  timeoutMs: number;
  /** When given, the reply is streamed and each fragment is handed over as it arrives. */
  onDelta?: (text: string) => Promise<void> | void;
}

/** A model provider: one chat completion, streamed or not. */
export interface ChatProvider {
  chat(call: ProviderCall, options: ChatOptions): Promise<ProviderReply>;
}

export type ProviderFailure = 'upstream' | 'timeout';

/** The upstream failed or took too long; `message` is what the task's `comments` says. */
export class ProviderError extends Error {
  constructor(
    readonly reason: ProviderFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError;
}

/** Word count: the deterministic token estimate used when an upstream reports no usage. */
export const countTokens = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export const promptTokens = (messages: ChatMessage[]): number => messages.reduce((n, m) => n + countTokens(m.content), 0);

export function estimateUsage(messages: ChatMessage[], completion: string): Usage {
  const prompt = promptTokens(messages);
  const completionTokens = countTokens(completion);
  return { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
}

/** The caller's signal and the timeout in one; `timedOut()` tells which fired. */
export function withTimeout(signal: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut(): boolean; clear(): void } {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new ProviderError('timeout', `upstream did not answer within ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    clear: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}
