import { resolve } from 'node:path';
import { connectNatsBus, createMemoryBus, type EventBus, type Logger, type ServiceHandle, type ServiceModule, type ServiceName } from '@tollgate/kit';
import { loadGatewayConfig, startGateway, type GatewayHandle } from '@tollgate/gateway';
import { keysService } from '@tollgate/keys';
import { billingService } from '@tollgate/billing';
import { docsService } from '@tollgate/docs';
import { tasksService } from '@tollgate/tasks';
import { searchService } from '@tollgate/search';
import { provideDatabases } from './databases';
import type { SystemConfig } from './config';

/** Start order: a service may call the ones before it. */
const MODULES: ServiceModule[] = [keysService, billingService, docsService, tasksService, searchService] as ServiceModule[];

export interface EmbeddedSystem {
  gateway: GatewayHandle;
  services: Record<ServiceName, ServiceHandle>;
  bus: EventBus;
  databaseUrls: Record<ServiceName, string>;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  config: SystemConfig;
  log: Logger;
  /** Extra environment for every service and the gateway (tests use it for settings). */
  env?: NodeJS.ProcessEnv;
}

/** The whole system in one process: databases, bus, every service's gRPC server on loopback, and the gateway. */
export async function startEmbeddedSystem({ config, log, env: extraEnv = {} }: EmbeddedOptions): Promise<EmbeddedSystem> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, TOLLGATE_DATA_DIR: resolve(config.TOLLGATE_DATA_DIR) };
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log.error({ err }, 'stop failed'));
  };
  try {
    const dbs = await provideDatabases(
      MODULES.map((m) => m.name),
      { env, dataDir: env.TOLLGATE_DATA_DIR!, port: config.EMBEDDED_PG_PORT, log: log.child({ component: 'postgres' }) },
    );
    if (dbs.embedded) stops.push(dbs.embedded.stop);

    const bus = config.NATS_URL ? await connectNatsBus({ url: config.NATS_URL, name: 'tollgate', prefix: config.NATS_PREFIX, logger: log }) : createMemoryBus();
    stops.push(() => bus.close());

    const services = {} as Record<ServiceName, ServiceHandle>;
    for (const module of MODULES) {
      const moduleEnv = { ...env, DATABASE_URL: dbs.urls[module.name], GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', ...addressesEnv(services) };
      const handle = await module.start(module.loadConfig(moduleEnv), { bus, log: log.child({ service: module.name }) });
      services[module.name] = handle;
      stops.push(() => handle.stop());
    }

    const gatewayConfig = loadGatewayConfig({ ...env, PORT: String(config.PORT), HTTPS_PORT: String(config.HTTPS_PORT), ...addressesEnv(services) });
    const gateway = await startGateway(gatewayConfig, log.child({ service: 'gateway' }), { bus });
    stops.push(() => gateway.stop());
    return { gateway, services, bus, databaseUrls: dbs.urls, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function addressesEnv(services: Partial<Record<ServiceName, ServiceHandle>>): Record<string, string> {
  return Object.fromEntries(Object.entries(services).map(([name, handle]) => [`${name.toUpperCase()}_GRPC_ADDR`, handle!.address]));
}
