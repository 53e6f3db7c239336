import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createMemoryBus, silentLogger } from '@tollgate/kit';
import { createGatewayApp } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { connectUpstreams } from '../src/upstreams';
import { RouteBook } from '../src/http/route-book';

// The gateway alone, with upstream addresses where nothing listens: the HTTP skeleton's behaviour.
describe('gateway skeleton', () => {
  let server: Server;
  let base: string;
  const config = loadGatewayConfig({
    BODY_LIMIT_BYTES: '1024',
    KEYS_GRPC_ADDR: '127.0.0.1:1',
    BILLING_GRPC_ADDR: '127.0.0.1:1',
    TASKS_GRPC_ADDR: '127.0.0.1:1',
    DOCS_GRPC_ADDR: '127.0.0.1:1',
    SEARCH_GRPC_ADDR: '127.0.0.1:1',
  });
  const upstreams = connectUpstreams(config);

  beforeAll(async () => {
    const app = createGatewayApp({ config, log: silentLogger(), upstreams, bus: createMemoryBus(), book: new RouteBook() });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    upstreams.close();
    await new Promise((r) => server.close(r));
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('is not ready while upstreams are down, and names them', async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.upstream).toEqual({ keys: false, billing: false, tasks: false, docs: false, search: false });
  });

  it('checks the API key before it reports a malformed JSON body', async () => {
    const res = await fetch(`${base}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages": [' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: expect.stringContaining('Authorization') });
  });

  it('answers a malformed path escape with 422, never 500', async () => {
    const res = await fetch(`${base}/v1/task-query/%ff`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).detail[0]).toMatchObject({ loc: ['path'], type: 'path_invalid' });
  });

  it('refuses a body over the limit with 413 {detail}', async () => {
    const res = await fetch(`${base}/v1/agent/demo-agent/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(5000) }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: expect.stringContaining('1024') });
  });

  it('answers an unknown route with 404 {detail}, never HTML', async () => {
    const res = await fetch(`${base}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ detail: 'no route for GET /no/such/route' });
  });

  it('answers a served path with the wrong method with 405 {detail} and Allow', async () => {
    const res = await fetch(`${base}/v1/agent/demo-agent/sync`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({ detail: 'PATCH is not allowed on /v1/agent/demo-agent/sync; allowed: POST' });
    const query = await fetch(`${base}/v1/task-query/20261126120000000001`, { method: 'DELETE' });
    expect(query.status).toBe(405);
    expect(query.headers.get('allow')).toBe('GET');
  });

  it('echoes a well-formed request id and replaces a malformed one', async () => {
    const kept = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
