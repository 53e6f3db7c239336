import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveOnLoopback, type LoopbackServer } from '../support/loopback-server';
import type { TestSystem } from '../support/system';
import { send } from './tasks-support';

/**
 * A local HTTP service the tests' tools and workflow steps call, over a real socket:
 * - `POST /weather` → `{"city": <body.city>, "temp_c": 21}` (JSON)
 * - `GET /lookup?q=` → `found <q>` (text)
 * - `POST /save` → `{"id": 42, "saved": <body>}` (JSON)
 * - `POST /broken` → HTTP 500 `tool exploded`
 * - `POST /slow` → never answers
 * - `POST /hold` → answers `{"held": true, "got": <body>}` only once `release()` is called
 */
export interface ToolServer {
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: any }>;
  /** Resolves once a request to `path` has arrived (counting from the start). */
  arrived(path: string, count?: number): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

export async function startToolServer(): Promise<ToolServer> {
  let served: LoopbackServer | undefined;
  const held: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const state: ToolServer = {
    url: '',
    requests: [],
    arrived: async (path, count = 1) => {
      while (state.requests.filter((r) => r.path === path).length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ held: true, got: (res as ServerResponse & { got?: unknown }).got }));
    },
    close: () => served?.close() ?? Promise.resolve(),
  };
  const json = (res: ServerResponse, status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

  served = await serveOnLoopback(async (req, res) => {
    let raw = '';
    for await (const part of req) raw += part;
    const url = new URL(req.url ?? '/', 'http://x');
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    state.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body });
    for (const w of waiters.splice(0)) w();
    switch (`${req.method} ${url.pathname}`) {
      case 'POST /weather':
        return json(res, 200, { city: body?.city, temp_c: 21 });
      case 'GET /lookup':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`found ${url.searchParams.get('q')}`);
      case 'POST /save':
        return json(res, 200, { id: 42, saved: body });
      case 'POST /broken':
        return res.writeHead(500, { 'content-type': 'text/plain' }).end('tool exploded');
      case 'POST /slow':
        return;
      case 'POST /hold':
        Object.assign(res, { got: body });
        held.push(res);
        return;
      default:
        return json(res, 404, { error: 'no such tool route' });
    }
  });
  state.url = served.url;
  return state;
}

/** Creates an app with the account's user token; throws with the answer when it is refused. */
export async function createApp(t: TestSystem, token: string, app: Record<string, unknown>): Promise<any> {
  const r = await send(t, 'POST', '/v1/apps', { key: token, body: { name: String(app.app_id), ...app } });
  if (r.status !== 200) throw new Error(`app create failed: ${r.status} ${r.text}`);
  return r.body;
}

/** The 422's `loc`s, joined with dots. */
export const locs = (body: { detail: Array<{ loc: string[] }> }) => body.detail.map((d) => d.loc.join('.'));
