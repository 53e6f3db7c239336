import type { TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';

export type { Reply } from '../support/reply';

/** A docs-API call over HTTPS; `body` as a string is sent verbatim (malformed JSON tests). */
export async function call(t: TestSystem, method: string, path: string, token: string | undefined, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const res = await t.httpsFetch(`${t.https}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const r = await readReply(res);
  if (r.body === undefined) throw new Error(`${method} ${path} answered ${r.status} with a body that is not JSON: ${r.text.slice(0, 200)}`);
  return r;
}

let seq = 0;

/** A pro-level user (10,000 requests/hour) made by the admin, with the given docs permissions. */
export async function docsUser(t: TestSystem, permissions: { docs_read?: boolean; docs_write?: boolean; admin?: boolean }): Promise<{ id: number; token: string }> {
  seq += 1;
  const r = await call(t, 'POST', '/api/v1/users', t.adminToken, {
    name: `docs user ${seq}`,
    email: `docs${seq}-${process.pid}-${Date.now()}@example.com`,
    level: 'pro',
    permissions: { docs_read: false, docs_write: false, admin: false, ...permissions },
  });
  if (r.status !== 201) throw new Error(`user create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, token: r.body.data.token };
}

/** Polls `check` until it returns something other than undefined, or fails after the deadline (no fixed sleeps). */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The envelope every docs-API answer has, success or error. */
export function expectEnvelope(r: Reply, status: number): void {
  expect(r.status).toBe(status);
  expect(r.body.code).toBe(status);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.message.length).toBeGreaterThan(0);
  expect(r.body).toHaveProperty('data');
  // data is an object on every answer: {} on an error without details
  expect(typeof r.body.data === 'object' && r.body.data !== null && !Array.isArray(r.body.data)).toBe(true);
  expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
}
