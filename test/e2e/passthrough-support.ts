import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { TestSystem } from '../support/system';
import type { FakeOpenAi } from '../support/fake-openai';
import { newKey, newUser, postForm } from './keys-support';

export const UPSTREAM_KEY = 'sk-upstream-secret-for-the-fake';
export const BODY_LIMIT = 65_536;

/** A base URL where nothing listens (a port that was free a moment ago). */
export async function deadBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

/**
 * The gateway settings of the passthrough tests: `fake` (with an API key), `bare` (the same
 * upstream, no key), `slow` (300 ms timeout), `down` (nothing listening).
 */
export async function passthroughEnv(fake: FakeOpenAi): Promise<NodeJS.ProcessEnv> {
  const providers = {
    fake: { base_url: fake.baseUrl, api_key: UPSTREAM_KEY },
    bare: { base_url: `${fake.baseUrl}/` },
    slow: { base_url: fake.baseUrl, api_key: UPSTREAM_KEY, timeout_ms: 300 },
    down: { base_url: await deadBaseUrl(), api_key: UPSTREAM_KEY },
  };
  return { PROVIDERS: JSON.stringify(providers), BODY_LIMIT_BYTES: String(BODY_LIMIT), BILLING_RPM_PRO: '100000', BILLING_CONCURRENCY_PRO: '1000' };
}

export interface KeyOf {
  token: string;
  id: number;
  key: string;
}

/** A new account with one key of `channel` (and `quota` when given). */
export async function accountKey(t: TestSystem, channel: string, quota?: string): Promise<KeyOf> {
  const user = await newUser(t);
  const k = await newKey(t, user.token, { channel, ...(quota !== undefined && { quota }) });
  return { token: user.token, id: k.id, key: k.key };
}

/** The official openai client pointed at the gateway; no retries, so each call is one request. */
export const clientFor = (t: TestSystem, key: string) => new OpenAI({ baseURL: `${t.http}/v1`, apiKey: key, maxRetries: 0 });

export async function usedQuota(t: TestSystem, k: KeyOf): Promise<number> {
  const r = await postForm(t, '/apikeys/list', { token: k.token });
  const item = (r.body.data.items as Array<{ id: number; used_quota: number }>).find((i) => i.id === k.id);
  if (!item) throw new Error(`key ${k.id} not listed: ${JSON.stringify(r.body)}`);
  return Number(item.used_quota);
}

/** used_quota once it equals `expected` (a request is settled when its response has closed), else its last value. */
export async function settledUsedQuota(t: TestSystem, k: KeyOf, expected: number): Promise<number> {
  let used = await usedQuota(t, k);
  for (let i = 0; i < 200 && used !== expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    used = await usedQuota(t, k);
  }
  return used;
}

export async function post(t: TestSystem, path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.http}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined && { authorization: `Bearer ${key}` }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export const chat = (content: string, model = 'fake-model') => ({ model, messages: [{ role: 'user' as const, content }] });
