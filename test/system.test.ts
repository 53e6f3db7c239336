import { ProbeClient } from '@tollgate/protos/common';
import { createGrpcClient, SERVICE_NAMES } from '@tollgate/kit';
import { startTestSystem, type TestSystem } from './support/system';

// The foundation end to end: gateway → gRPC → service → PostgreSQL, on the embedded system.
describe('embedded system', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is ready once every service answers its health check', async () => {
    if (!t) return;
    const res = await fetch(`${t.http}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', upstream: { keys: true, billing: true, tasks: true, docs: true, search: true } });
  });

  it.each(SERVICE_NAMES)('round-trips gRPC to the %s service and its own database', async (name) => {
    if (!t) return;
    const client = createGrpcClient(ProbeClient, t.system.services[name].address);
    try {
      const before = Date.now();
      const res = await client.ping({});
      expect(res.service).toBe(name);
      expect(Math.abs(new Date(res.databaseTime).getTime() - before)).toBeLessThan(60_000);
    } finally {
      client.close();
    }
  });

  it('gives every service its own database', () => {
    if (!t) return;
    expect(new Set(Object.values(t.system.databaseUrls)).size).toBe(SERVICE_NAMES.length);
  });

  it('serves HTTPS with the certificate it made', async () => {
    if (!t) return;
    const res = await t.httpsFetch(`${t.https}/healthz`);
    expect(res.status).toBe(200);
  });

  it('is not ready after a service stops', async () => {
    if (!t) return;
    await t.system.services.search.stop();
    const res = await fetch(`${t.http}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { upstream: Record<string, boolean> }).upstream.search).toBe(false);
  });
});
