import type { Logger } from 'pino';
import { ProbeService } from '@tollgate/protos/common';
import { applyMigrations } from '../db';
import { implement } from '../grpc/handlers';
import { startGrpcServer, type ServiceBinding } from '../grpc/server';
import type { BaseServiceConfig } from './base-config';
import { createGrpcMetrics, createMetricsRegistry, instrumentImplementation, startMetricsServer, type MetricsServer } from '../metrics';
import type { Registry } from 'prom-client';

export interface QueryableDatabase {
  $queryRawUnsafe<T = unknown>(query: string): Promise<T>;
  $disconnect(): Promise<void>;
}

export interface ServiceHandle {
  name: string;
  /** host:port of the gRPC server. */
  address: string;
  /** This instance's Prometheus registry (gRPC calls by method and code, latency). */
  metrics: Registry;
  /** Where `/metrics` is served when METRICS_PORT is set. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export interface ServiceRuntimeOptions<D extends QueryableDatabase> {
  name: string;
  config: BaseServiceConfig;
  log: Logger;
  /** The service's committed Prisma migrations, applied before anything else. */
  migrationsDir: string;
  createDb(databaseUrl: string): D;
  /** Builds the gRPC services (and starts any background work) once the database is ready. */
  build(db: D, extras: { metrics: Registry }): Promise<{ services: ServiceBinding[]; onStop?: () => Promise<void> }> | { services: ServiceBinding[]; onStop?: () => Promise<void> };
}

/**
 * Migrates the service's database, builds it, and serves it over gRPC with health and Probe.
 * stop(): stop accepting, finish in-flight calls, stop background work, close the database.
 */
export async function startServiceRuntime<D extends QueryableDatabase>(options: ServiceRuntimeOptions<D>): Promise<ServiceHandle> {
  const { name, log, config } = options;
  await applyMigrations({ connectionString: config.databaseUrl, migrationsDir: options.migrationsDir, logger: log });
  const db = options.createDb(config.databaseUrl);
  const metrics = createMetricsRegistry({ service: name }, { processMetrics: config.metricsPort !== undefined });
  const built = await options.build(db, { metrics });
  const probe: ServiceBinding = {
    definition: ProbeService,
    implementation: implement(
      ProbeService,
      {
        ping: async () => {
          const rows = await db.$queryRawUnsafe<Array<{ now: Date }>>('SELECT now() AS now');
          return { service: name, databaseTime: rows[0].now.toISOString() };
        },
      },
      log,
    ),
  };
  const grpcMetrics = createGrpcMetrics(metrics);
  const services = [...built.services, probe].map((b) => ({ ...b, implementation: instrumentImplementation(b.definition, b.implementation, grpcMetrics) }));
  const server = await startGrpcServer({ name, host: config.grpcHost, port: config.grpcPort, log, services, shutdownGraceMs: config.shutdownGraceMs });
  let metricsServer: MetricsServer | undefined;
  if (config.metricsPort !== undefined) metricsServer = await startMetricsServer({ registry: metrics, host: config.grpcHost, port: config.metricsPort, log });
  return {
    name,
    address: server.address,
    metrics,
    metricsUrl: metricsServer?.url,
    stop: async () => {
      await server.shutdown();
      await metricsServer?.stop();
      await built.onStop?.();
      await db.$disconnect();
      log.info(`${name} stopped`);
    },
  };
}
