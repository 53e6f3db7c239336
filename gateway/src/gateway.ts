import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { EventBus, Logger } from '@tollgate/kit';
import { createGatewayApp } from './app';
import type { GatewayConfig } from './config';
import { connectUpstreams } from './upstreams';
import { loadTlsMaterial } from './tls';
import type { GatewayDeps } from './deps';
import { RouteBook } from './http/route-book';
import { watchedKeyCache } from './auth/key-cache';

export interface GatewayHandle {
  httpUrl: string;
  httpsUrl?: string;
  /** PEM of the certificate the HTTPS listener serves (for clients that must trust it). */
  tlsCert?: string;
  deps: GatewayDeps;
  stop(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

/** Starts the HTTP and HTTPS listeners of the gateway; stop() drains them and closes the upstream channels. */
export async function startGateway(config: GatewayConfig, log: Logger, shared: { bus: EventBus }): Promise<GatewayHandle> {
  const upstreams = connectUpstreams(config);
  const keyCache = await watchedKeyCache(shared.bus, log);
  const deps: GatewayDeps = { config, log, upstreams, bus: shared.bus, book: new RouteBook(), keyCache: keyCache.cache };
  const app = createGatewayApp(deps);
  const displayHost = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;

  // TLS material first: once the HTTP listener answers /readyz, HTTPS must be up too.
  const tls = config.HTTPS_ENABLED ? await loadTlsMaterial({ certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE, dataDir: config.TOLLGATE_DATA_DIR, log }) : undefined;
  const servers: Server[] = [];
  let httpsUrl: string | undefined;
  if (tls) {
    const https = createHttpsServer({ cert: tls.cert, key: tls.key }, app) as unknown as Server;
    const httpsPort = await listen(https, config.HTTPS_PORT, config.HOST);
    servers.push(https);
    httpsUrl = `https://${displayHost}:${httpsPort}`;
  }
  const http = createHttpServer(app);
  const httpPort = await listen(http, config.PORT, config.HOST);
  servers.push(http);
  const tlsCert = tls?.cert;
  const httpUrl = `http://${displayHost}:${httpPort}`;
  log.info({ httpUrl, httpsUrl }, 'gateway listening');
  return {
    httpUrl,
    httpsUrl,
    tlsCert,
    deps,
    stop: async () => {
      await Promise.all(servers.map(close));
      await keyCache.stop();
      upstreams.close();
    },
  };
}
