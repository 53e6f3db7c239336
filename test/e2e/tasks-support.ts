import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';

export type { Reply } from '../support/reply';

/** Settings that keep the async tests quick: short leases and polls. */
export const TASKS_TEST_ENV = { TASKS_POLL_MS: '200', TASKS_LEASE_MS: '2000', BILLING_RPM_PRO: '100000', BILLING_CONCURRENCY_PRO: '1000' };

export async function send(t: TestSystem, method: string, path: string, opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(`${t.http}${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  return readReply(res);
}

let seq = 0;

/** A new account (made by the admin) with one API key; `token` is the account's user token. */
export async function newAccountWithKey(t: TestSystem, level = 'pro'): Promise<{ accountId: number; token: string; key: string; keyId: number }> {
  seq += 1;
  const created = await t.httpsFetch(`${t.https}/api/v1/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
    body: JSON.stringify({ name: `tasks user ${seq}`, email: `tasks${seq}-${Date.now()}@example.com`, level }),
  });
  if (created.status !== 201) throw new Error(`account create failed: ${created.status} ${await created.text()}`);
  const u = (await created.json()) as { data: { id: number; token: string } };
  const form = new URLSearchParams({ token: u.data.token, name: 'tasks key' });
  const k = (await (await fetch(`${t.http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })).json()) as { data: { id: number; key: string } };
  return { accountId: u.data.id, token: u.data.token, key: k.data.key, keyId: k.data.id };
}

export interface SseReply {
  status: number;
  headers: Headers;
  events: EventSourceMessage[];
  /** The JSON of each `data:` except `[DONE]`. */
  json: any[];
  done: boolean;
}

/** Reads a text/event-stream response with eventsource-parser, as a client program would. */
export async function readSse(res: Response, onEvent?: (e: EventSourceMessage) => void): Promise<SseReply> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (e) => {
      events.push(e);
      onEvent?.(e);
    },
  });
  const decoder = new TextDecoder();
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(part, { stream: true }));
  return {
    status: res.status,
    headers: res.headers,
    events,
    json: events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data)),
    done: events.at(-1)?.data === '[DONE]',
  };
}

export async function openStream(t: TestSystem, path: string, key: string, body?: unknown, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.http}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body: body === undefined ? undefined : JSON.stringify(body), signal });
}

/**
 * Polls the task until it reaches one of `statuses` (the spec's client loop). A sync task has no row
 * until it ends: with `sync`, a 404 is polled again for up to 10 s.
 */
export async function waitForStatus(t: TestSystem, key: string, taskNumber: string, statuses: string[], opts: { sync?: boolean } = {}): Promise<any> {
  const missingUntil = Date.now() + (opts.sync ? 10_000 : 0);
  for (;;) {
    const r = await send(t, 'GET', `/v1/task-query/${taskNumber}`, { key });
    if (r.status === 404 && Date.now() < missingUntil) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (r.status !== 200) throw new Error(`query failed: ${r.status} ${r.text}`);
    if (statuses.includes(r.body.status)) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const hello = (content = 'hello there') => ({ messages: [{ role: 'user', content }] });
