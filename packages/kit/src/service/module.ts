import type { Logger } from 'pino';
import type { EventBus } from '../bus';
import type { BaseServiceConfig, ServiceName } from './base-config';
import type { ServiceHandle } from './runtime';

export interface ServiceDeps {
  bus: EventBus;
  log: Logger;
}

/**
 * What each service package exports, so that its own main.ts and the embedded system start it
 * the same way: config read from the environment by the service itself, then start.
 */
export interface ServiceModule<C extends BaseServiceConfig = BaseServiceConfig> {
  name: ServiceName;
  loadConfig(env: NodeJS.ProcessEnv): C;
  start(config: C, deps: ServiceDeps): Promise<ServiceHandle>;
}
