import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { Router } from 'express';
import { AppError } from '@tollgate/kit';
import { errorHandler } from '../src/http/errors';
import { createGatewayMetrics, executionsTotal, httpMetrics, observeErrors, quotaRejectionsTotal, type GatewayMetrics } from '../src/metrics';
import { startOfflineGateway, type OfflineGateway } from './support/offline-gateway';

/** The value of one series in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && line.split(' ')[0] !== name) continue;
    const body = line.slice(name.length).match(/^\{(.*)\}/)?.[1] ?? '';
    const have = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

describe('gateway /metrics', () => {
  let a: OfflineGateway;
  let b: OfflineGateway;
  beforeAll(async () => {
    a = await startOfflineGateway();
    b = await startOfflineGateway();
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it('counts requests by method, route template and status, per gateway instance', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${a.base}/healthz`);
    await fetch(`${b.base}/healthz`);
    const textA = await scrape(a.base);
    const textB = await scrape(b.base);
    expect(sample(textA, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(sample(textB, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    expect(sample(textA, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(sample(textA, 'http_request_duration_seconds_bucket', { route: '/healthz', le: '+Inf' })).toBe(3);
  });

  it('labels a route by its template, not by the ids in the URL, and keeps unmatched paths in one series', async () => {
    const templated = a.deps.book.routes.find((r) => r.method === 'get' && /\/:\w+$/.test(r.path) && !r.path.startsWith('/api/'));
    expect(templated).toBeDefined();
    await fetch(`${a.base}${templated!.path.replace(/:\w+$/, 'zz98765')}`);
    await fetch(`${a.base}/no/such/path/a1`);
    await fetch(`${a.base}/no/such/path/b2`);
    const text = await scrape(a.base);
    expect(text).not.toContain('zz98765');
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'http_requests_total', { route: '(unmatched)', status: '404' })).toBe(2);
    expect(text).toContain(`http_requests_total{method="GET",route="${templated!.path}",status=`);
  });

  it('exposes the execution and quota counters and process metrics', async () => {
    executionsTotal.inc({ kind: 'agent', outcome: 'ok' });
    const text = await scrape(a.base);
    expect(sample(text, 'tollgate_executions_total', { kind: 'agent', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(text).toContain('# TYPE tollgate_quota_rejections_total counter');
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${a.base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/metrics']).toBeDefined();
  });
});

describe('HTTP metrics middleware', () => {
  let server: Server;
  let base: string;
  let metrics: GatewayMetrics;
  beforeAll(async () => {
    metrics = createGatewayMetrics({ processMetrics: false });
    const app = express();
    app.use(httpMetrics(app, metrics));
    const mounted = Router();
    mounted.get('/v1/things/:id', () => {
      throw AppError.exhausted('insufficient quota', { limit: 'quota' });
    });
    mounted.get('/v1/slow/:id', () => {
      throw AppError.exhausted('too many requests per minute', { limit: 'rpm', retryAfterSeconds: 3 });
    });
    app.use('/api', mounted);
    app.get('/ok/:id', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/own/:id', (req, res) => {
      res.json({ ownRoute: Object.getOwnPropertyDescriptor(req, 'route') !== undefined, path: (req.route as { path?: string } | undefined)?.path });
    });
    app.use(observeErrors);
    app.use(errorHandler);
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('counts a 429 for exhausted quota as a quota rejection, and other 429s not', async () => {
    const before = (await quotaRejectionsTotal.get()).values[0]?.value ?? 0;
    expect((await fetch(`${base}/api/v1/things/1`)).status).toBe(429);
    expect((await fetch(`${base}/api/v1/things/2`)).status).toBe(429);
    expect((await fetch(`${base}/api/v1/slow/1`)).status).toBe(429);
    expect((await fetch(`${base}/ok/1`)).status).toBe(200);
    expect((await quotaRejectionsTotal.get()).values[0].value - before).toBe(2);
  });

  it('reads the route template without giving each request an accessor of its own (req.route still answers)', async () => {
    const res = await fetch(`${base}/own/7`);
    expect(await res.json()).toEqual({ ownRoute: false, path: '/own/:id' });
  });

  it('keeps the mount path in the route template even when the route failed', async () => {
    const text = await metrics.registry.metrics();
    expect(sample(text, 'http_requests_total', { route: '/api/v1/things/:id', status: '429' })).toBe(2);
    expect(sample(text, 'http_requests_total', { route: '/api/v1/slow/:id', status: '429' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/ok/:id', status: '200' })).toBe(1);
  });
});
