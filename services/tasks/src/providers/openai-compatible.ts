import { parseStorableJson, storableText } from '@tollgate/kit';
import { isTokenCount, type ToolCall, type Usage } from '../domain/types';
import { sseData } from './sse-lines';
import { ToolCallAssembler, toolCallsOf, type UpstreamToolCall, upstreamMessages, upstreamTools } from './openai-tools';
import { ProviderError, estimateUsage, withTimeout, type ChatOptions, type ChatProvider, type ProviderCall, type ProviderReply } from './types';

export interface OpenAiCompatibleTarget {
  baseUrl: string;
  apiKey: string;
}

interface UpstreamChoice {
  message?: { content?: string | null; tool_calls?: UpstreamToolCall[] | null };
  delta?: { content?: string | null; tool_calls?: UpstreamToolCall[] | null };
  finish_reason?: string | null;
}
interface UpstreamBody {
  model?: string;
  choices?: UpstreamChoice[];
  usage?: Partial<Usage> | null;
  error?: { message?: string } | string;
}

const MAX_ERROR_TEXT = 300;

function upstreamMessage(text: string): string {
  try {
    const body = parseStorableJson(text) as UpstreamBody;
    const error = body.error;
    const message = typeof error === 'string' ? error : error?.message;
    if (message) return message.slice(0, MAX_ERROR_TEXT);
  } catch {
    // not JSON: use the text itself
  }
  return storableText(text.trim().slice(0, MAX_ERROR_TEXT)) || 'no body';
}

/**
 * The upstream's usage when it reports a believable one (whole, non-negative, 32-bit counts), else a
 * word count: a server an app points at may send anything, and what is billed must be a count.
 */
function usageOf(reported: Partial<Usage> | null | undefined, call: ProviderCall, content: string): Usage {
  if (reported && isTokenCount(reported.prompt_tokens) && isTokenCount(reported.completion_tokens)) {
    const sum = reported.prompt_tokens + reported.completion_tokens;
    return { prompt_tokens: reported.prompt_tokens, completion_tokens: reported.completion_tokens, total_tokens: isTokenCount(reported.total_tokens) ? reported.total_tokens : sum };
  }
  return estimateUsage(call.messages, content);
}

/** An answer's text: a string, or nothing (null, absent); anything else is not an OpenAI-compatible answer. */
function textOf(value: unknown, where: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ProviderError('upstream', `upstream answer's ${where} is not text (${typeof value})`);
  return value;
}

const optionalText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What a failed fetch or body read says: its cause's code or message (undici wraps the socket's error). */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** A failure while the upstream's body was being read (the connection broke off): the upstream's, not ours. */
function readFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || err instanceof ProviderError) return err;
  return new ProviderError('upstream', `upstream connection broke off during the answer: ${causeOf(err)}`);
}

/** The upstream's stream events, a broken connection turned into a provider failure. */
async function* upstreamEvents(res: Response, signal: AbortSignal): AsyncGenerator<string> {
  const events = sseData(res.body!)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await events.next();
    } catch (err) {
      throw readFailure(err, signal);
    }
    if (next.done) return;
    yield next.value;
  }
}

async function readStream(res: Response, call: ProviderCall, options: ChatOptions): Promise<ProviderReply> {
  let content = '';
  let finishReason = '';
  let model = call.model;
  let usage: Partial<Usage> | null | undefined;
  let done = false;
  const calls = new ToolCallAssembler();
  for await (const data of upstreamEvents(res, options.signal)) {
    if (data === '[DONE]') {
      done = true;
      break;
    }
    let chunk: UpstreamBody;
    try {
      chunk = parseStorableJson(data) as UpstreamBody;
    } catch {
      throw new ProviderError('upstream', `upstream sent a stream chunk that is not JSON: ${data.slice(0, 100)}`);
    }
    if (chunk.error) throw new ProviderError('upstream', `upstream reported an error mid-stream: ${upstreamMessage(data)}`);
    model = optionalText(chunk.model) ?? model;
    usage = chunk.usage ?? usage;
    const choice = chunk.choices?.[0];
    const text = textOf(choice?.delta?.content, 'delta.content');
    if (text) {
      content += text;
      await options.onDelta!(text);
    }
    for (const part of choice?.delta?.tool_calls ?? []) calls.add(part);
    finishReason = optionalText(choice?.finish_reason) || finishReason;
  }
  if (!done && !finishReason) throw new ProviderError('upstream', 'upstream stream ended before the completion finished');
  const toolCalls: ToolCall[] = calls.done();
  return { content, ...(toolCalls.length > 0 && { toolCalls }), model, finishReason: finishReason || 'stop', usage: usageOf(usage, call, content) };
}

async function readJson(res: Response, call: ProviderCall, signal: AbortSignal): Promise<ProviderReply> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw readFailure(err, signal);
  }
  let body: UpstreamBody;
  try {
    body = parseStorableJson(text) as UpstreamBody;
  } catch {
    throw new ProviderError('upstream', `upstream answered with something that is not JSON: ${text.slice(0, 100)}`);
  }
  const choice = body.choices?.[0];
  if (!choice?.message) throw new ProviderError('upstream', 'upstream answer has no choices[0].message');
  const content = textOf(choice.message.content, 'message.content');
  const toolCalls = toolCallsOf(choice.message.tool_calls);
  return { content, ...(toolCalls.length > 0 && { toolCalls }), model: optionalText(body.model) ?? call.model, finishReason: optionalText(choice.finish_reason) || 'stop', usage: usageOf(body.usage, call, content) };
}

/** `POST <base_url>/chat/completions` of an OpenAI-compatible server (OpenAI, vLLM, Ollama, DeepSeek, Qwen …). */
export function openAiCompatibleProvider(target: OpenAiCompatibleTarget): ChatProvider {
  const url = `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    async chat(call, options) {
      const stream = options.onDelta !== undefined;
      const body = {
        model: call.model,
        messages: upstreamMessages(call.messages),
        ...(call.tools?.length ? { tools: upstreamTools(call.tools) } : {}),
        ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
        ...(call.maxTokens !== undefined ? { max_tokens: call.maxTokens } : {}),
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
      if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
      const budget = withTimeout(options.signal, options.timeoutMs);
      try {
        let res: Response;
        try {
          res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: budget.signal });
        } catch (err) {
          if (budget.signal.aborted) throw err;
          throw new ProviderError('upstream', `upstream ${url} unreachable: ${causeOf(err)}`);
        }
        if (!res.ok) throw new ProviderError('upstream', `upstream returned HTTP ${res.status}: ${upstreamMessage(await res.text())}`);
        return stream ? await readStream(res, call, options) : await readJson(res, call, options.signal);
      } catch (err) {
        if (budget.timedOut()) throw new ProviderError('timeout', `upstream did not answer within ${options.timeoutMs} ms`);
        throw err;
      } finally {
        budget.clear();
      }
    },
  };
}
