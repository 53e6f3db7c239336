import { resolve } from 'node:path';
import { connectNatsBus, createMemoryBus, type EventBus, type Logger, type ServiceHandle, type ServiceName } from '@tollgate/kit';
import { loadGatewayConfig, startGateway, type GatewayHandle } from '@tollgate/gateway';
import { provideDatabases } from './databases';
import type { SystemConfig } from './config';
import { SERVICE_ORDER, THREAD_GROUPS, moduleNamed } from './modules';
import { loadServiceThread, type ServiceThread } from './threads/service-threads';

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
  /**
   * Each service in its own worker thread (the gateway and the bus stay in this one), so the system
   * uses every core; false runs everything on this thread. Threads need TypeScript loading in
   * workers (tsx, as `pnpm start` runs): jest tests run single-threaded.
   */
  threads?: boolean;
  /** Aborting it during start-up stops what has started (in reverse order) and rejects with `StartAborted`. */
  signal?: AbortSignal;
}

/** The start was called off (a signal arrived during start-up); what had started is stopped. */
export class StartAborted extends Error {
  constructor() {
    super('start-up aborted');
    this.name = 'StartAborted';
  }
}

/** The whole system in one process: databases, bus, every service's gRPC server on loopback (each in its own thread with `threads`), and the gateway. */
export async function startEmbeddedSystem({ config, log, env: extraEnv = {}, signal, threads = false }: EmbeddedOptions): Promise<EmbeddedSystem> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, TOLLGATE_DATA_DIR: resolve(config.TOLLGATE_DATA_DIR) };
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch((err: unknown) => log.error({ err }, 'stop failed'));
  };
  const checkpoint = () => {
    if (signal?.aborted) throw new StartAborted();
  };
  try {
    checkpoint();
    const dbs = await provideDatabases(
      SERVICE_ORDER,
      { env, dataDir: env.TOLLGATE_DATA_DIR!, port: config.EMBEDDED_PG_PORT, log: log.child({ component: 'postgres' }) },
    );
    if (dbs.embedded) stops.push(dbs.embedded.stop);
    checkpoint();

    const bus = config.NATS_URL ? await connectNatsBus({ url: config.NATS_URL, name: 'tollgate', prefix: config.NATS_PREFIX, logger: log }) : createMemoryBus();
    stops.push(() => bus.close());

    const threadOf = new Map<ServiceName, ServiceThread>();
    if (threads) {
      // Loaded side by side (loading code is the slow part), their services started in order below.
      const loading = await Promise.allSettled(THREAD_GROUPS.map((names) => loadServiceThread(names, bus, log)));
      const loaded = loading.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      for (const t of loaded) for (const name of t.names) threadOf.set(name, t);
      // A thread whose services never all started is ended here (a started service's stop ends it otherwise).
      stops.push(async () => void (await Promise.all(loaded.map((t) => t.terminate()))));
      const failed = loading.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      checkpoint();
    }

    const services = {} as Record<ServiceName, ServiceHandle>;
    for (const name of SERVICE_ORDER) {
      const moduleEnv = { ...env, DATABASE_URL: dbs.urls[name], GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', ...addressesEnv(services) };
      const thread = threadOf.get(name);
      const module = thread ? undefined : moduleNamed(name);
      const handle = thread ? await thread.start(name, moduleEnv) : await module!.start(module!.loadConfig(moduleEnv), { bus, log: log.child({ service: name }) });
      services[name] = handle;
      stops.push(() => handle.stop());
      checkpoint();
    }

    const gatewayConfig = loadGatewayConfig({ ...env, PORT: String(config.PORT), HTTPS_PORT: String(config.HTTPS_PORT), ...addressesEnv(services) });
    const gateway = await startGateway(gatewayConfig, log.child({ service: 'gateway' }), { bus });
    stops.push(() => gateway.stop());
    checkpoint();
    return { gateway, services, bus, databaseUrls: dbs.urls, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function addressesEnv(services: Partial<Record<ServiceName, ServiceHandle>>): Record<string, string> {
  return Object.fromEntries(Object.entries(services).map(([name, handle]) => [`${name.toUpperCase()}_GRPC_ADDR`, handle!.address]));
}
