import { randomBytes } from 'node:crypto';
import { BENCH_ADMIN_TOKEN, serves, type BenchSystem } from './system';

export type Account = { ok: true; apiKey: string; userToken: string; accountId: number } | { ok: false; reason: string };

/** A user (admin creates it, `POST /api/v1/users`) and an API key (`POST /apikeys/create`; without quota unless given), through the public API. */
export async function createBenchAccount(b: BenchSystem, channel?: string, quota?: string): Promise<Account> {
  for (const [method, path] of [['POST', '/api/v1/users'], ['POST', '/apikeys/create']]) {
    if (!serves(b.system, method, path)) return { ok: false, reason: `the gateway does not serve ${method} ${path} yet` };
  }
  const userRes = await b.fetchTls(`${b.https}/api/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', email: `bench-${randomBytes(4).toString('hex')}@bench.invalid`, level: 'enterprise', permissions: { docs_read: true, docs_write: false, admin: false } }),
  });
  const user = (await userRes.json()) as { data?: { token?: string; id?: number } };
  if (!userRes.ok || !user.data?.token) return { ok: false, reason: `POST /api/v1/users answered ${userRes.status}: ${JSON.stringify(user).slice(0, 200)}` };
  const keyRes = await fetch(`${b.http}/apikeys/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: user.data.token, name: 'bench key', ...(channel && { channel }), ...(quota && { quota }) }),
  });
  const key = (await keyRes.json()) as { data?: { key?: string } };
  if (!keyRes.ok || !key.data?.key) return { ok: false, reason: `POST /apikeys/create answered ${keyRes.status}: ${JSON.stringify(key).slice(0, 200)}` };
  return { ok: true, apiKey: key.data.key, userToken: user.data.token, accountId: Number(user.data.id) };
}
