import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { createMemoryBus, silentLogger, type Logger } from '@tollgate/kit';
import { createGatewayApp } from '../../src/app';
import { loadGatewayConfig } from '../../src/config';
import { connectUpstreams } from '../../src/upstreams';
import { RouteBook } from '../../src/http/route-book';
import type { GatewayDeps } from '../../src/deps';

export interface OfflineGateway {
  app: Express;
  deps: GatewayDeps;
  base: string;
  stop(): Promise<void>;
}

const nowhere = '127.0.0.1:1';

/** The real gateway app on a free port, with upstream addresses where nothing listens (every route is registered all the same). */
export async function startOfflineGateway(log: Logger = silentLogger()): Promise<OfflineGateway> {
  const config = loadGatewayConfig({ KEYS_GRPC_ADDR: nowhere, BILLING_GRPC_ADDR: nowhere, TASKS_GRPC_ADDR: nowhere, DOCS_GRPC_ADDR: nowhere, SEARCH_GRPC_ADDR: nowhere, GRPC_DEADLINE_MS: '500' });
  const upstreams = connectUpstreams(config);
  const deps: GatewayDeps = { config, log, upstreams, bus: createMemoryBus(), book: new RouteBook() };
  const app = createGatewayApp(deps);
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    app,
    deps,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      upstreams.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
