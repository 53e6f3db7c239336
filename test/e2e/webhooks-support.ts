import { createHmac, timingSafeEqual } from 'node:crypto';
import pg from 'pg';
import type { IncomingHttpHeaders } from 'node:http';
import { serveOnLoopback, type LoopbackServer } from '../support/loopback-server';
import type { TestSystem } from '../support/system';
import { call, eventually, type Reply } from './docs-support';

/** What a webhook receiver got: the raw body exactly as sent, and the headers. */
export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  path: string;
}

/** A webhook receiver on loopback speaking plain HTTP; `answer` decides each status (default 200). */
export interface Receiver {
  url: string;
  got: Received[];
  answer: (r: Received, n: number) => number;
  /** The body each answer carries, by its status (default `ok`, or `failure <status>`). */
  bodyOf: (status: number) => string;
  /** Holds answers until release() (a slow receiver). */
  hold: boolean;
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let waiting: Array<() => void> = [];
  let served: LoopbackServer | undefined;
  const receiver: Receiver = {
    url: '',
    got: [],
    answer: () => 200,
    bodyOf: (status) => (status < 300 ? 'ok' : `failure ${status}`),
    hold: false,
    release: () => {
      receiver.hold = false;
      for (const w of waiting) w();
      waiting = [];
    },
    close: () => served?.close() ?? Promise.resolve(),
  };
  served = await serveOnLoopback(async (req, res) => {
    let raw = '';
    for await (const part of req) raw += part;
    const r: Received = { headers: req.headers, raw, body: JSON.parse(raw), path: req.url ?? '' };
    receiver.got.push(r);
    if (receiver.hold) await new Promise<void>((resolve) => waiting.push(resolve));
    const status = receiver.answer(r, receiver.got.length);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(receiver.bodyOf(status));
  });
  receiver.url = served.url;
  return receiver;
}

/** The receiver-side check documented in docs/webhooks.md: any v1 matches, t within the tolerance. */
export function verifies(r: Received, secret: string, toleranceSec = 300): boolean {
  const header = String(r.headers['tollgate-signature'] ?? '');
  const items = header.split(',').map((p) => p.split('='));
  const t = Number(items.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSec) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${r.raw}`).digest();
  return items.some(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? '') && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

export const hooks = (t: TestSystem, method: string, path: string, token: string | undefined, body?: unknown): Promise<Reply> => call(t, method, `/api/v1/webhooks${path}`, token, body);

export async function subscribe(t: TestSystem, token: string, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const r = await hooks(t, 'POST', '', token, { url, events });
  if (r.status !== 201) throw new Error(`subscribe failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, secret: r.body.data.secret };
}

/** Deliveries of a webhook as the API lists them. */
export async function deliveries(t: TestSystem, token: string, id: string): Promise<any[]> {
  const r = await hooks(t, 'GET', `/${id}/deliveries`, token);
  if (r.status !== 200) throw new Error(`deliveries failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.deliveries;
}

/** Waits for the receiver to have got a request matching `match`. */
export const received = (rcv: Receiver, match: (r: Received) => boolean, what: string, timeoutMs = 20_000) =>
  eventually(async () => rcv.got.find(match), what, timeoutMs);

export const ofType = (type: string) => (r: Received) => r.body.type === type;

/** Reads the tasks database (per-submission deliveries have no API listing). */
export async function tasksSql<T extends pg.QueryResultRow>(t: TestSystem, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.system.databaseUrls.tasks });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The per-submission delivery to `url` once it has ended: its status, attempts and each attempt's error. */
export const endedDeliveryTo = (t: TestSystem, url: string) =>
  eventually(async () => {
    const rows = await tasksSql<{ status: string; attempts: number; errors: string[] }>(
      t,
      `SELECT d.status, d.attempts, array_agg(a.error ORDER BY a.number) AS errors
       FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
       WHERE d.url = $1 GROUP BY d.id`,
      [url],
    );
    return rows[0] && rows[0].status !== 'pending' ? rows[0] : undefined;
  }, `the delivery to ${url} to end`);
