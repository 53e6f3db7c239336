import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { fixAsyncResourceBind } from './async-resource-bind';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';

export interface ServiceBinding {
  definition: object;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  name: string;
  host?: string;
  port: number;
  services: ServiceBinding[];
  log: Logger;
  /** How long in-flight calls may take to finish on shutdown before they are cancelled. */
  shutdownGraceMs?: number;
}

export interface RunningGrpcServer {
  port: number;
  address: string;
  health: HealthImplementation;
  /** Stop accepting, let in-flight calls finish (bounded), then force. */
  shutdown(): Promise<void>;
}

export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  fixAsyncResourceBind();
  const { name, host = '127.0.0.1', log, shutdownGraceMs = 10_000 } = options;
  // channelz (a debugging registry of every call) costs CPU on each call and nothing here reads it
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024, 'grpc.enable_channelz': 0 });
  for (const binding of options.services) {
    server.addService(binding.definition as ServiceDefinition, binding.implementation);
  }
  const health = new HealthImplementation({ '': 'SERVING', [name]: 'SERVING' });
  health.addToServer(server);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (err, boundPort) => (err ? reject(err) : resolve(boundPort)));
  });
  const address = `${host}:${port}`;
  log.info({ address }, `${name} gRPC server listening`);

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= new Promise<void>((resolve) => {
      health.setStatus('', 'NOT_SERVING');
      health.setStatus(name, 'NOT_SERVING');
      const force = setTimeout(() => {
        log.warn('grace period over, cancelling in-flight calls');
        server.forceShutdown();
        resolve();
      }, shutdownGraceMs);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    return stopping;
  };
  return { port, address, health, shutdown };
}
