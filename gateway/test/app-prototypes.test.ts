import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { Agent, fetch as undiciFetch } from 'undici';
import { createMemoryBus, silentLogger } from '@tollgate/kit';
import { appMessageClasses } from '../src/http/app-prototypes';
import { loadGatewayConfig } from '../src/config';
import { startGateway, type GatewayHandle } from '../src/gateway';

type Seen = { request: object | null; response: object | null };

/** Serves `app` on loopback and records the prototypes its request and response had before Express touched them. */
async function serve(app: Express, options: http.ServerOptions): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const server = http.createServer(options, app);
  const seen: Seen[] = [];
  server.prependListener('request', (req, res) => seen.push({ request: Object.getPrototypeOf(req), response: Object.getPrototypeOf(res) }));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function appWithRoute(): Express {
  const app = express();
  app.get('/echo', (req, res) => {
    res.json({ q: req.query.q, isRequest: req instanceof IncomingMessage, isResponse: res instanceof ServerResponse, ip: req.ip });
  });
  return app;
}

describe('requests born with the app’s prototypes', () => {
  it('reach Express already carrying app.request and app.response, and behave as Express requests', async () => {
    const app = appWithRoute();
    const s = await serve(app, appMessageClasses(app));
    try {
      const res = await fetch(`${s.url}/echo?q=hello`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ q: 'hello', isRequest: true, isResponse: true, ip: '127.0.0.1' });
      expect(s.seen).toHaveLength(1);
      expect(s.seen[0].request).toBe(app.request);
      expect(s.seen[0].response).toBe(app.response);
    } finally {
      await s.close();
    }
  });

  it('are plain Node messages without them (the control: Express changes their prototype on every request)', async () => {
    const app = appWithRoute();
    const s = await serve(app, {});
    try {
      expect((await fetch(`${s.url}/echo?q=x`)).status).toBe(200);
      expect(s.seen[0].request).toBe(IncomingMessage.prototype);
      expect(s.seen[0].response).toBe(ServerResponse.prototype);
    } finally {
      await s.close();
    }
  });
});

describe('the gateway’s HTTP and HTTPS listeners', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-prototypes-'));
  const dead = '127.0.0.1:1';
  let gateway: GatewayHandle;
  const seen: object[] = [];
  const spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    const config = loadGatewayConfig({
      PORT: '0',
      HTTPS_PORT: '0',
      TOLLGATE_DATA_DIR: dataDir,
      KEYS_GRPC_ADDR: dead,
      BILLING_GRPC_ADDR: dead,
      TASKS_GRPC_ADDR: dead,
      DOCS_GRPC_ADDR: dead,
      SEARCH_GRPC_ADDR: dead,
    });
    gateway = await startGateway(config, silentLogger(), { bus: createMemoryBus() });
    for (const proto of [http.Server.prototype, https.Server.prototype]) {
      const emit = proto.emit;
      spies.push(
        jest.spyOn(proto, 'emit').mockImplementation(function (this: http.Server, event: string | symbol, ...args: unknown[]) {
          if (event === 'request') seen.push(Object.getPrototypeOf(args[0]) as object);
          return Reflect.apply(emit, this, [event, ...args]) as boolean;
        }),
      );
    }
  });

  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hand Express requests whose prototype is already the app’s', async () => {
    const viaHttp = await fetch(`${gateway.httpUrl}/healthz`);
    const dispatcher = new Agent({ connect: { ca: gateway.tlsCert } });
    const viaHttps = await undiciFetch(`${gateway.httpsUrl}/healthz`, { dispatcher });
    await dispatcher.close();
    expect([viaHttp.status, viaHttps.status]).toEqual([200, 200]);
    expect(seen).toHaveLength(2);
    for (const proto of seen) {
      expect(proto).not.toBe(IncomingMessage.prototype);
      expect(typeof (proto as { app?: { handle?: unknown } }).app?.handle).toBe('function');
      expect(Object.prototype.isPrototypeOf.call(IncomingMessage.prototype, proto)).toBe(true);
    }
    expect(seen[0]).toBe(seen[1]);
  });
});
