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
import { watchedCaches } from './auth/key-cache';
import { RequestRecorder } from './analytics/request-recorder';
import { answerParserErrors, answerUnmetExpectations } from './http/client-error';
import { PARSER_MAX_HEADER_BYTES } from './http/header-size';
import { appMessageClasses } from './http/app-prototypes';
import { connectionLimiter, defaultTotalConnections, openFilesLimit } from './http/connection-limits';

export interface GatewayHandle {
  httpUrl: string;
  httpsUrl?: string;
  /** PEM of the certificate the HTTPS listener serves (for clients that must trust it). */
  tlsCert?: string;
  deps: GatewayDeps;
  stop(): Promise<void>;
}

/** Connections the kernel may queue before the gateway accepts them: a burst of clients is queued, not reset. */
const LISTEN_BACKLOG = 4096;

/**
 * Idle keep-alive connections stay open this long: well beyond a client's own idle timeout, so a
 * client never sends a request on a connection the gateway is closing (a reset, under load).
 */
const KEEP_ALIVE_MS = 65_000;

/** Timeouts of receiving a request (creation options: the check interval is one). */
function requestTimeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(KEEP_ALIVE_MS + 1_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(requestTimeoutMs / 4))),
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Node keeps 2,000 header lines by default and drops the rest unseen (the head-size limit could not
 * count them, nor a route read one): keep all of them; the parser's byte limit bounds them anyway.
 */
function keepEveryHeader(server: Server): void {
  server.maxHeadersCount = 0;
}

/** How often a stopping server closes the connections that fell idle. */
const IDLE_SWEEP_MS = 50;

/** Stops accepting, lets the requests in flight finish within `graceMs`, then cuts what is left. */
function close(server: Server, graceMs: number, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    // A kept-alive connection whose request finished during the drain is closed as it falls idle.
    const idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => {
      log.warn({ graceMs }, 'shutdown grace over: closing the connections of requests still in flight');
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearInterval(idleSweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Starts the HTTP and HTTPS listeners of the gateway; stop() drains them and closes the upstream channels. */
export async function startGateway(config: GatewayConfig, log: Logger, shared: { bus: EventBus }): Promise<GatewayHandle> {
  const upstreams = connectUpstreams(config);
  const caches = await watchedCaches(shared.bus, log);
  const recorder = new RequestRecorder(upstreams.site, log.child({ component: 'request-analytics' }), { flushMs: config.ANALYTICS_FLUSH_MS, maxBuffered: config.ANALYTICS_BUFFER_MAX, batchSize: 5_000 });
  recorder.start();
  const deps: GatewayDeps = { config, log, upstreams, bus: shared.bus, book: new RouteBook(), keyCache: caches.keys, accountCache: caches.accounts, recorder };
  const app = createGatewayApp(deps);
  const messages = appMessageClasses(app);
  const displayHost = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;

  // TLS material first: once the HTTP listener answers /readyz, HTTPS must be up too.
  const tls = config.HTTPS_ENABLED ? await loadTlsMaterial({ certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE, dataDir: config.TOLLGATE_DATA_DIR, log }) : undefined;
  const servers: Server[] = [];
  const timeouts = requestTimeouts(config.REQUEST_TIMEOUT_MS);
  const trustProxy = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const connections = connectionLimiter({ total: config.MAX_CONNECTIONS || defaultTotalConnections(openFilesLimit()), perClient: config.MAX_CONNECTIONS_PER_CLIENT }, (address) => trustProxy(address, 0), log);
  let httpsUrl: string | undefined;
  if (tls) {
    const https = createHttpsServer({ cert: tls.cert, key: tls.key, maxHeaderSize: PARSER_MAX_HEADER_BYTES, ...timeouts, ...messages }, app) as unknown as Server;
    keepEveryHeader(https);
    answerParserErrors(https, deps, log);
    answerUnmetExpectations(https, deps, log);
    connections.watch(https);
    const httpsPort = await listen(https, config.HTTPS_PORT, config.HOST);
    servers.push(https);
    deps.httpsPort = httpsPort;
    httpsUrl = `https://${displayHost}:${httpsPort}`;
  }
  const http = createHttpServer({ maxHeaderSize: PARSER_MAX_HEADER_BYTES, ...timeouts, ...messages }, app);
  keepEveryHeader(http);
  answerParserErrors(http, deps, log);
  answerUnmetExpectations(http, deps, log);
  connections.watch(http);
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
      await Promise.all(servers.map((server) => close(server, config.SHUTDOWN_GRACE_MS, log)));
      await caches.stop();
      await recorder.stop();
      await deps.billingLink?.flush();
      upstreams.close();
    },
  };
}
