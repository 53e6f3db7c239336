import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

/** A small HTTP listener that answers `GET /metrics` in the Prometheus text format (anything else: 404). */
export async function startMetricsServer(options: { registry: Registry; host: string; port: number; log: Logger }): Promise<MetricsServer> {
  const { registry, log } = options;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: only GET /metrics is served here\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        log.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  const url = `http://${host}:${port}/metrics`;
  log.info({ url }, 'metrics listening');
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
