import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveOnLoopback, type LoopbackServer } from './loopback-server';

/**
 * A local server that speaks the OpenAI chat-completions protocol over a real socket, standing in for
 * an upstream model provider. The requested model picks the behaviour:
 * - any model: answers `Fake reply to: <last user message>` (streamed word by word when `stream`)
 * - `fake-error`: HTTP 500 with an OpenAI error body
 * - `fake-hang`: never answers (upstream timeout)
 * - `fake-slow-stream`: streams one word every `slowChunkMs`, forever (client abort / cancel)
 * - `fake-stream-error`: streams one word, then an error chunk
 * - `fake-nul`: the usual reply with NUL characters (`\u0000`) in its text
 * - `fake-bad-usage`: the usual reply with a usage no one should bill (negative, beyond 64 bits, a string)
 * - `fake-number-content`: a reply whose content is the number 12345
 * - `fake-broken`: half an answer (JSON), or one content chunk (stream), then the connection reset
 */
export interface FakeOpenAi {
  /** Base URL to configure as an app's `base_url` (ends in /v1). */
  baseUrl: string;
  /** Every chat request received, in order. */
  requests: Array<{ headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
  /** Requests whose client hung up before the answer was complete. */
  aborted: number;
  /** Resolves when the count of aborted requests reaches `n`. */
  waitForAborts(n: number): Promise<void>;
  close(): Promise<void>;
}

const words = (text: string) => text.match(/\S+\s*/g) ?? [];

function lastUser(body: Record<string, unknown>): string {
  const messages = (body.messages as Array<{ role: string; content: string }>) ?? [];
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

function chunk(id: string, model: string, delta: Record<string, string>, finish: string | null, usage?: object) {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage && { usage }) })}\n\n`;
}

export async function startFakeOpenAi(options: { slowChunkMs?: number } = {}): Promise<FakeOpenAi> {
  const slowChunkMs = options.slowChunkMs ?? 100;
  let served: LoopbackServer | undefined;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const state: FakeOpenAi = {
    baseUrl: '',
    requests: [],
    aborted: 0,
    waitForAborts: (n) => (state.aborted >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () => served?.close() ?? Promise.resolve(),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let raw = '';
    for await (const part of req) raw += part;
    const body = JSON.parse(raw) as Record<string, unknown>;
    state.requests.push({ headers: req.headers, body });
    res.on('close', () => {
      if (res.writableFinished) return;
      state.aborted += 1;
      for (const w of waiters.filter((x) => state.aborted >= x.n)) w.resolve();
    });
    const model = String(body.model);
    const id = `chatcmpl-fake-${state.requests.length}`;
    if (model === 'fake-error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the fake upstream broke', type: 'server_error' } }));
      return;
    }
    if (model === 'fake-hang') return;
    const reply = model === 'fake-nul' ? `Fake\u0000reply to: ${lastUser(body)}\u0000` : `Fake reply to: ${lastUser(body)}`;
    const promptTokens = ((body.messages as Array<{ content: string }>) ?? []).reduce((n, m) => n + words(m.content).length, 0);
    const usage =
      model === 'fake-bad-usage'
        ? { prompt_tokens: -5, completion_tokens: 1e20, total_tokens: 'x' }
        : { prompt_tokens: promptTokens, completion_tokens: words(reply).length, total_tokens: promptTokens + words(reply).length };
    if (model === 'fake-number-content' && !body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: 12345 }, finish_reason: 'stop' }] }));
      return;
    }
    if (model === 'fake-broken' && !body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
      res.write('{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"half');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }], usage }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk(id, model, { role: 'assistant', content: '' }, null));
    if (model === 'fake-slow-stream') {
      const timer = setInterval(() => res.write(chunk(id, model, { content: 'slow ' }, null)), slowChunkMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (model === 'fake-broken') {
      res.write(chunk(id, model, { content: 'partial ' }, null));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (model === 'fake-stream-error') {
      res.write(chunk(id, model, { content: 'partial ' }, null));
      res.end(`data: ${JSON.stringify({ error: { message: 'the fake upstream broke mid-stream' } })}\n\n`);
      return;
    }
    for (const w of words(reply)) res.write(chunk(id, model, { content: w }, null));
    res.write(chunk(id, model, {}, 'stop'));
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) res.write(chunk(id, model, {}, null, usage));
    res.end('data: [DONE]\n\n');
  };

  served = await serveOnLoopback(handle);
  state.baseUrl = `${served.url}/v1`;
  return state;
}
