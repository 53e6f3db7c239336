import { connectNatsBus, createMemoryBus, type EventBus } from '../bus';
import { createLogger } from '../logging/logger';
import { stopOnSignals } from './lifecycle';
import type { BaseServiceConfig } from './base-config';
import type { ServiceModule } from './module';

/** The whole of a service's main.ts in the distributed mode: config, logger, bus, start, stop on signals. */
export async function runServiceMain<C extends BaseServiceConfig>(module: ServiceModule<C>): Promise<void> {
  const config = module.loadConfig(process.env);
  const log = createLogger({ name: module.name, level: config.logLevel });
  let bus: EventBus;
  if (config.natsUrl) {
    bus = await connectNatsBus({ url: config.natsUrl, name: module.name, prefix: config.natsPrefix, logger: log });
  } else {
    log.warn('NATS_URL is not set: events stay inside this process (fine for one process, wrong for a distributed deployment)');
    bus = createMemoryBus();
  }
  const handle = await module.start(config, { bus, log });
  stopOnSignals(async () => {
    await handle.stop();
    await bus.close();
  }, log);
}
