import { parseStorableJson, storableText } from '@tollgate/kit';
import type { ToolCall, Usage } from '../domain/types';
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

function usageOf(reported: Partial<Usage> | null | undefined, call: ProviderCall, content: string): Usage {
  if (reported && typeof reported.prompt_tokens === 'number' && typeof reported.completion_tokens === 'number') {
    return { prompt_tokens: reported.prompt_tokens, completion_tokens: reported.completion_tokens, total_tokens: reported.total_tokens ?? reported.prompt_tokens + reported.completion_tokens };
  }
  return estimateUsage(call.messages, content);
}

async function readStream(res: Response, call: ProviderCall, options: ChatOptions): Promise<ProviderReply> {
  let content = '';
  let finishReason = '';
  let model = call.model;
  let usage: Partial<Usage> | null | undefined;
  let done = false;
  const calls = new ToolCallAssembler();
  for await (const data of sseData(res.body!)) {
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
    model = chunk.model ?? model;
    usage = chunk.usage ?? usage;
    const choice = chunk.choices?.[0];
    const text = choice?.delta?.content ?? '';
    if (text) {
      content += text;
      await options.onDelta!(text);
    }
    for (const part of choice?.delta?.tool_calls ?? []) calls.add(part);
    if (choice?.finish_reason) finishReason = choice.finish_reason;
  }
  if (!done && !finishReason) throw new ProviderError('upstream', 'upstream stream ended before the completion finished');
  const toolCalls: ToolCall[] = calls.done();
  return { content, ...(toolCalls.length > 0 && { toolCalls }), model, finishReason: finishReason || 'stop', usage: usageOf(usage, call, content) };
}

async function readJson(res: Response, call: ProviderCall): Promise<ProviderReply> {
  const text = await res.text();
  let body: UpstreamBody;
  try {
    body = parseStorableJson(text) as UpstreamBody;
  } catch {
    throw new ProviderError('upstream', `upstream answered with something that is not JSON: ${text.slice(0, 100)}`);
  }
  const choice = body.choices?.[0];
  if (!choice?.message) throw new ProviderError('upstream', 'upstream answer has no choices[0].message');
  const content = choice.message.content ?? '';
  const toolCalls = toolCallsOf(choice.message.tool_calls);
  return { content, ...(toolCalls.length > 0 && { toolCalls }), model: body.model ?? call.model, finishReason: choice.finish_reason ?? 'stop', usage: usageOf(body.usage, call, content) };
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
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          throw new ProviderError('upstream', `upstream ${url} unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
        }
        if (!res.ok) throw new ProviderError('upstream', `upstream returned HTTP ${res.status}: ${upstreamMessage(await res.text())}`);
        return stream ? await readStream(res, call, options) : await readJson(res, call);
      } catch (err) {
        if (budget.timedOut()) throw new ProviderError('timeout', `upstream did not answer within ${options.timeoutMs} ms`);
        throw err;
      } finally {
        budget.clear();
      }
    },
  };
}
