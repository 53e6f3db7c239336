import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { requireApiKey, principalOf } from '../../gateway/src/auth/api-key';
import { errorHandler } from '../../gateway/src/http/errors';
import { RouteBook } from '../../gateway/src/http/route-book';
import type { TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';

export type { Reply } from '../support/reply';

/** POST a form (application/x-www-form-urlencoded) to the gateway, as the spec's key management does. */
export async function postForm(t: TestSystem, path: string, fields: Record<string, string | string[]>): Promise<Reply> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  const res = await fetch(`${t.http}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params.toString() });
  return readReply(res);
}

/** A docs-API call over HTTPS with a Bearer user token. */
export async function api(t: TestSystem, method: string, path: string, token: string | undefined, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const res = await t.httpsFetch(`${t.https}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return readReply(res);
}

let seq = 0;

/** A new user made by the admin; returns its id and token. */
export async function newUser(t: TestSystem, extra: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
  seq += 1;
  const r = await api(t, 'POST', '/api/v1/users', t.adminToken, { name: `user ${seq}`, email: `user${seq}-${Date.now()}@example.com`, level: 'pro', ...extra });
  if (r.status !== 201) throw new Error(`user create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, token: r.body.data.token };
}

/** A new key of the token's account; returns the key record (with the whole key). */
export async function newKey(t: TestSystem, token: string, fields: Record<string, string> = {}): Promise<any> {
  const r = await postForm(t, '/apikeys/create', { token, name: 'probe key', ...fields });
  if (r.status !== 200) throw new Error(`key create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

export async function updateKey(t: TestSystem, token: string, id: number, fields: Record<string, string>): Promise<Reply> {
  return postForm(t, '/apikeys/update', { token, api_key_id: String(id), ...fields });
}

/** `YYYYMMDDhhmmss` (UTC) of now + offset. */
export function time14(offsetMs: number): string {
  return new Date(Date.now() + offsetMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export interface Probe {
  /** POST /probe/<kind> with `Authorization: <header>`; `raw` sets the header verbatim. */
  call(kind: string, key: string | undefined, raw?: boolean): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * A test-only app with the real requireApiKey in front of one route, wired to the running
 * system's gateway deps (same upstreams, same key cache, same bus).
 */
export async function startProbe(t: TestSystem): Promise<Probe> {
  const deps = { ...t.system.gateway.deps, book: new RouteBook() };
  const app = express();
  app.use(express.json());
  app.post('/probe/:kind', requireApiKey(deps, (req) => String(req.params.kind)), (_req, res) => {
    const p = principalOf(res);
    res.json({ actor: p.actor, key_id: p.key.id, channel: p.key.channel, account_id: p.account.id, used_quota: p.key.usedQuota });
  });
  app.use(errorHandler);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    async call(kind, key, raw = false) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key !== undefined) headers.authorization = raw ? key : `Bearer ${key}`;
      const res = await fetch(`${base}/probe/${kind}`, { method: 'POST', headers, body: '{}' });
      return readReply(res);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Status and JSON body only, for exact comparisons of an answer's shape. */
export const statusAndBody = (r: Reply) => ({ status: r.status, body: r.body });
