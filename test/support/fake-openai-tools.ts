import type { IncomingMessage } from 'node:http';
import { serveOnLoopback, type LoopbackServer } from './loopback-server';

/**
 * A local server that speaks the OpenAI chat-completions protocol with function calling, over a real
 * socket: a model that uses tools. Without a script it behaves like this:
 * - the last message is a `tool` answer → `The tool answered: <its content>`
 * - the last user message contains `use <tool> <json args>` → one `tool_calls` item for it
 *   (`finish_reason: "tool_calls"`, content null)
 * - otherwise → `Fake reply to: <last user message>`
 * Streamed answers split tool-call arguments across several chunks, as OpenAI does.
 */
export interface FakeToolModel {
  baseUrl: string;
  /** Every chat request received, in order. */
  requests: Array<Record<string, any>>;
  close(): Promise<void>;
}

export interface ScriptedReply {
  content?: string;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
}

type Message = { role: string; content: string | null; tool_call_id?: string };

export function defaultToolScript(body: Record<string, any>, requestNo: number): ScriptedReply {
  const messages = (body.messages as Message[]) ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return { content: `The tool answered: ${last.content}` };
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const use = /use ([A-Za-z0-9_-]+) (\{.*\})/.exec(user);
  if (use && body.tools) return { tool_calls: [{ id: `call_fake_${requestNo}`, name: use[1], arguments: use[2] }] };
  return { content: `Fake reply to: ${user}` };
}

const words = (text: string) => text.match(/\S+\s*/g) ?? [];

function pieces(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

export async function startFakeToolModel(script: (body: Record<string, any>, requestNo: number) => ScriptedReply = defaultToolScript): Promise<FakeToolModel> {
  let served: LoopbackServer | undefined;
  const state: FakeToolModel = {
    baseUrl: '',
    requests: [],
    close: () => served?.close() ?? Promise.resolve(),
  };

  const handle = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let raw = '';
    for await (const part of req) raw += part;
    const body = JSON.parse(raw) as Record<string, any>;
    state.requests.push(body);
    const reply = script(body, state.requests.length);
    const id = `chatcmpl-tools-${state.requests.length}`;
    const model = String(body.model);
    const created = Math.floor(Date.now() / 1000);
    const calls = reply.tool_calls ?? [];
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const toolCallsJson = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    if (!body.stream) {
      const message = { role: 'assistant', content: reply.content ?? null, ...(calls.length > 0 && { tool_calls: toolCallsJson }) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
      return;
    }
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: calls.length > 0 ? null : '' }, null));
    for (const w of words(reply.content ?? '')) res.write(chunk({ content: w }, null));
    calls.forEach((c, index) => {
      res.write(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null));
      for (const part of pieces(c.arguments, 3)) res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }, null));
    });
    res.write(chunk({}, finish));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };

  served = await serveOnLoopback(handle);
  state.baseUrl = `${served.url}/v1`;
  return state;
}
