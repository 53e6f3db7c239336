import pg from 'pg';
import { silentLogger, SERVICE_NAMES } from '@tollgate/kit';
import { loadGatewayConfig, startGateway, type GatewayHandle } from '@tollgate/gateway';
import { fetchTrusting } from '../support/https';
import type { TestSystem } from '../support/system';
import { readReply, type Reply } from '../support/reply';

export type { Reply } from '../support/reply';

/** A call with `Authorization: Bearer <token>` to the gateway over HTTPS (the docs API requires it; /v1 accepts it). */
export async function call(t: TestSystem, method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (token !== undefined) h.authorization = `Bearer ${token}`;
  const res = await t.httpsFetch(`${t.https}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  return readReply(res);
}

let seq = 0;

/** A new account made by the admin through the docs API; returns its id and user token. */
export async function newAccount(t: TestSystem, level: 'free' | 'pro' | 'enterprise'): Promise<{ id: number; token: string }> {
  seq += 1;
  const r = await call(t, 'POST', '/api/v1/users', t.adminToken, { name: `billing user ${seq}`, email: `billing${seq}-${Date.now()}@example.com`, level });
  if (r.status !== 201) throw new Error(`account create failed: ${r.status} ${r.text}`);
  return { id: r.body.data.id, token: r.body.data.token };
}

/** A new API key of the token's account through the key-management form API; returns the key record with the whole key. */
export async function newApiKey(t: TestSystem, token: string, fields: Record<string, string> = {}): Promise<{ id: number; key: string }> {
  const form = new URLSearchParams({ token, name: 'billing key', ...fields });
  const res = await fetch(`${t.http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  const r = await readReply(res);
  if (r.status !== 200) throw new Error(`key create failed: ${r.status} ${r.text}`);
  return r.body.data;
}

/** Rows from the billing service's own database, for checking figures against the ledger. */
export async function billingSql<T extends pg.QueryResultRow>(t: TestSystem, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.system.databaseUrls.billing });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export interface Replica {
  gateway: GatewayHandle;
  httpsFetch: ReturnType<typeof fetchTrusting>;
  https: string;
}

/** Another gateway process-equivalent in front of the same services (its own gRPC channels, no shared memory with the first). */
export async function startReplica(t: TestSystem, env: NodeJS.ProcessEnv = {}): Promise<Replica> {
  const addresses = Object.fromEntries(SERVICE_NAMES.map((n) => [`${n.toUpperCase()}_GRPC_ADDR`, t.system.services[n].address]));
  const config = loadGatewayConfig({ ...addresses, PORT: '0', HTTPS_PORT: '0', HOST: '127.0.0.1', TOLLGATE_DATA_DIR: t.system.gateway.deps.config.TOLLGATE_DATA_DIR, ...env });
  const gateway = await startGateway(config, silentLogger(), { bus: t.system.bus });
  return { gateway, httpsFetch: fetchTrusting(gateway.tlsCert!), https: gateway.httpsUrl! };
}

export const thisMonth = () => new Date().toISOString().slice(0, 7);
