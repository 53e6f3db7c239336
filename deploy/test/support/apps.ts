import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES, DEFAULT_GRPC_PORTS, type ServiceName } from '@tollgate/kit';
import { gatewayConfigSchema } from '@tollgate/gateway/src/config';
import { configReads, type ConfigReads, type EnvSchema } from './config-reads';

export const REPO = join(__dirname, '..', '..', '..');

export type AppName = 'gateway' | ServiceName;
export const APPS: AppName[] = ['gateway', ...SERVICE_NAMES];

export interface AppFacts {
  name: AppName;
  schema: EnvSchema;
  reads: ConfigReads;
  /** Entry point, relative to the repository root. */
  main: string;
}

/** Each service's schema is `<name>ConfigSchema` in services/<name>/src/config.ts (the one reader of its env). */
function schemaOf(name: AppName): EnvSchema {
  if (name === 'gateway') return gatewayConfigSchema;
  const mod = require(join(REPO, 'services', name, 'src', 'config')) as Record<string, unknown>;
  const schema = mod[`${name}ConfigSchema`];
  if (!schema) throw new Error(`services/${name}/src/config.ts exports no ${name}ConfigSchema`);
  return schema as EnvSchema;
}

export function appFacts(name: AppName): AppFacts {
  const schema = schemaOf(name);
  const reads = configReads(schema);
  for (const r of reads.required) reads.read.add(r);
  const main = name === 'gateway' ? 'gateway/src/main.ts' : `services/${name}/src/main.ts`;
  if (!existsSync(join(REPO, main))) throw new Error(`${main} does not exist`);
  return { name, schema, reads, main };
}

/** Parses an environment with the app's own schema; returns the problems (empty when it would start). */
export function configProblems(app: AppFacts, env: Record<string, string>): string[] {
  const result = app.schema.safeParse(env);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
}

export const isService = (name: AppName): name is ServiceName => name !== 'gateway';
export { SERVICE_NAMES, DEFAULT_GRPC_PORTS };

/** `X_GRPC_ADDR` → the service X it points at, when X is one of ours. */
export function addressedService(envName: string): ServiceName | undefined {
  const m = /^([A-Z]+)_GRPC_ADDR$/.exec(envName);
  const name = m?.[1].toLowerCase();
  return (SERVICE_NAMES as readonly string[]).includes(name ?? '') ? (name as ServiceName) : undefined;
}
