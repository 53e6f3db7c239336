import { z } from 'zod';
import { envPort, logLevel } from '../config/env';

export const SERVICE_NAMES = ['keys', 'billing', 'tasks', 'docs', 'search'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Default gRPC port of each service in the distributed mode. */
export const DEFAULT_GRPC_PORTS: Record<ServiceName, number> = { keys: 50051, billing: 50052, tasks: 50053, docs: 50054, search: 50055 };

export interface BaseServiceConfig {
  databaseUrl: string;
  grpcHost: string;
  grpcPort: number;
  natsUrl?: string;
  natsPrefix?: string;
  logLevel: string;
  /** Port of the service's Prometheus `/metrics` listener; unset = no listener. */
  metricsPort?: number;
  shutdownGraceMs: number;
}

const baseShape = {
  DATABASE_URL: z.string().min(1).optional(),
  GRPC_HOST: z.string().default('127.0.0.1'),
  NATS_URL: z.string().min(1).optional(),
  /** Prefix of every stream and subject on a NATS server shared by several deployments. */
  NATS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only').optional(),
  LOG_LEVEL: logLevel,
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** On stop, how long calls in flight may take to finish before they are cancelled (below Kubernetes' 30 s termination grace). */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
};

/**
 * A service's configuration schema: the settings every service reads plus its own `extra` ones.
 * The database URL is `DATABASE_URL_<SERVICE>`, else `DATABASE_URL`.
 */
export function serviceConfigSchema<S extends z.ZodRawShape, X extends object>(name: ServiceName, extra: S, map: (env: z.infer<z.ZodObject<S>>) => X) {
  const specific = `DATABASE_URL_${name.toUpperCase()}`;
  return z
    .looseObject({ ...baseShape, GRPC_PORT: envPort(DEFAULT_GRPC_PORTS[name]), ...extra })
    .transform((env, ctx): BaseServiceConfig & X => {
      const raw = env as Record<string, unknown>;
      const databaseUrl = (typeof raw[specific] === 'string' && raw[specific]) || env.DATABASE_URL;
      if (!databaseUrl) {
        ctx.addIssue({ code: 'custom', path: [specific], message: `${specific} or DATABASE_URL is required` });
        return z.NEVER;
      }
      return {
        databaseUrl: databaseUrl as string,
        grpcHost: env.GRPC_HOST as string,
        grpcPort: env.GRPC_PORT as number,
        natsUrl: env.NATS_URL as string | undefined,
        natsPrefix: env.NATS_PREFIX as string | undefined,
        logLevel: env.LOG_LEVEL as string,
        metricsPort: env.METRICS_PORT as number | undefined,
        shutdownGraceMs: env.SHUTDOWN_GRACE_MS as number,
        ...map(env as z.infer<z.ZodObject<S>>),
      };
    });
}
