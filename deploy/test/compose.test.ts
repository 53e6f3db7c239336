import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPS, REPO, SERVICE_NAMES, addressedService, appFacts, configProblems, isService, type AppFacts, type AppName } from './support/apps';
import { commandOf, containerEnv, dependsOf, healthTestOf, loadCompose } from './support/compose';

// docker-compose.yml against the code: no Docker engine runs here, so this is what keeps it true.
describe('docker-compose.yml', () => {
  const compose = loadCompose();
  const facts = Object.fromEntries(APPS.map((a) => [a, appFacts(a)])) as Record<AppName, AppFacts>;
  const svc = (name: string) => compose.services[name];
  const envOf = (name: AppName) => containerEnv(svc(name));
  const grpcPortOf = (name: AppName) => Number(envOf(name).env.GRPC_PORT);

  it('has the infrastructure, every service and the gateway, and no top-level name (docker-compose 1.29 rejects it)', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...APPS, 'postgres', 'nats', 'meilisearch'].sort());
    expect(compose.name).toBeUndefined();
  });

  it.each(APPS)('%s: runs the one image, built from the Dockerfile, as a non-root user, with its own entry point', (name) => {
    const s = svc(name);
    expect(s.image).toMatch(/^tollgate:/);
    expect(s.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(s.user).toBe('node');
    expect(commandOf(s)).toEqual(['node', '--import', 'tsx', facts[name].main]);
  });

  it.each(APPS)('%s: sets only variables its configuration reads, all it requires, and values it accepts', (name) => {
    const { env, names } = envOf(name);
    const unknown = names.filter((n) => !facts[name].reads.read.has(n));
    expect(unknown).toEqual([]);
    const missing = [...facts[name].reads.required].filter((n) => !names.includes(n));
    expect(missing).toEqual([]);
    expect(configProblems(facts[name], env)).toEqual([]);
  });

  it.each(SERVICE_NAMES)('%s: listens for gRPC on all interfaces, and its health check probes that port', (name) => {
    const { env } = envOf(name);
    expect(env.GRPC_HOST).toBe('0.0.0.0');
    expect(grpcPortOf(name)).toBeGreaterThan(0);
    expect(healthTestOf(svc(name))).toEqual(['CMD', 'node', '--import', 'tsx', 'scripts/grpc-health.ts', `127.0.0.1:${grpcPortOf(name)}`]);
    expect(existsSync(join(REPO, 'scripts', 'grpc-health.ts'))).toBe(true);
  });

  it.each(APPS)('%s: every *_GRPC_ADDR it reads points at that service’s name and gRPC port, and it waits for that service to be healthy', (name) => {
    const { env } = envOf(name);
    const addressed = [...facts[name].reads.read].filter((n) => addressedService(n));
    if (name === 'gateway') expect(addressed.length).toBe(SERVICE_NAMES.length);
    for (const variable of addressed) {
      const target = addressedService(variable)!;
      expect({ variable, value: env[variable] }).toEqual({ variable, value: `${target}:${grpcPortOf(target)}` });
      expect({ target, condition: dependsOf(svc(name))[target]?.condition }).toEqual({ target, condition: 'service_healthy' });
    }
  });

  it.each(SERVICE_NAMES)('%s: owns a database that the PostgreSQL init script creates, and waits for PostgreSQL and NATS', (name) => {
    const url = new URL(envOf(name).env[`DATABASE_URL_${name.toUpperCase()}`]);
    expect(url.hostname).toBe('postgres');
    const created = String(containerEnv(svc('postgres')).env.TOLLGATE_DATABASES).split(/\s+/);
    expect(created).toContain(decodeURIComponent(url.pathname.slice(1)));
    expect(url.username).toBe(containerEnv(svc('postgres')).env.POSTGRES_USER);
    expect(url.password).toBe(containerEnv(svc('postgres')).env.POSTGRES_PASSWORD);
    expect(dependsOf(svc(name))).toMatchObject({ postgres: { condition: 'service_healthy' }, nats: { condition: 'service_healthy' } });
  });

  it('gives every service a different database', () => {
    const dbs = SERVICE_NAMES.map((n) => new URL(envOf(n).env[`DATABASE_URL_${n.toUpperCase()}`]).pathname);
    expect(new Set(dbs).size).toBe(SERVICE_NAMES.length);
  });

  it('creates the databases at first start with an init script that exists', () => {
    const mount = svc('postgres').volumes!.find((v) => v.includes('/docker-entrypoint-initdb.d/'))!;
    const [hostPath] = mount.split(':');
    const script = readFileSync(join(REPO, hostPath), 'utf8');
    expect(script).toContain('TOLLGATE_DATABASES');
    expect(script).toContain('CREATE DATABASE');
  });

  it.each(APPS)('%s: NATS_URL points at the nats service, which runs JetStream', (name) => {
    expect(envOf(name).env.NATS_URL).toBe('nats://nats:4222');
    expect(commandOf(svc('nats'))).toContain('-js');
  });

  it('the search service waits for a healthy Meilisearch', () => {
    expect(dependsOf(svc('search')).meilisearch).toEqual({ condition: 'service_healthy' });
  });

  it('every container has a health check, and every dependency waits on one', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect({ name, test: healthTestOf(s).length > 1 }).toEqual({ name, test: true });
      for (const [dep, cond] of Object.entries(dependsOf(s))) {
        expect({ name, dep, condition: cond.condition }).toEqual({ name, dep, condition: 'service_healthy' });
        expect(compose.services[dep]?.healthcheck).toBeDefined();
      }
    }
    expect(Object.keys(dependsOf(svc('gateway'))).sort()).toEqual([...SERVICE_NAMES].sort());
  });

  it('publishes the gateway’s HTTP and HTTPS ports, and its health check asks /readyz on PORT', () => {
    const { env } = envOf('gateway');
    const published = (svc('gateway').ports ?? []).map((p) => p.replace(/\$\{[^}]+:-(\d+)\}/, '$1'));
    expect(published).toEqual(expect.arrayContaining([`${env.PORT}:${env.PORT}`, `${env.HTTPS_PORT}:${env.HTTPS_PORT}`]));
    expect(env.HOST).toBe('0.0.0.0');
    expect(healthTestOf(svc('gateway')).join(' ')).toContain(`http://127.0.0.1:${env.PORT}/readyz`);
  });

  it('keeps data in named volumes that are declared', () => {
    const declared = Object.keys(compose.volumes ?? {});
    for (const name of ['postgres', 'nats', 'meilisearch', 'keys', 'gateway']) {
      const named = (svc(name).volumes ?? []).map((v) => v.split(':')[0]).filter((v) => !v.startsWith('.'));
      expect({ name, named: named.length > 0 }).toEqual({ name, named: true });
      for (const v of named) expect(declared).toContain(v);
    }
  });

  it.each(APPS.filter(isService))('%s: serves /metrics on METRICS_PORT', (name) => {
    expect(Number(envOf(name).env.METRICS_PORT)).toBeGreaterThan(0);
  });
});

describe('docker-compose.yml: Meilisearch', () => {
  const compose = loadCompose();
  const search = appFacts('search');

  it('the search service uses the compose Meilisearch, with its master key', () => {
    const { env } = containerEnv(compose.services.search);
    const meili = containerEnv(compose.services.meilisearch).env;
    expect(meili.MEILI_MASTER_KEY.length).toBeGreaterThanOrEqual(16);
    expect(search.reads.read).toContain('MEILISEARCH_URL');
    expect(env.MEILISEARCH_URL).toBe('http://meilisearch:7700');
    expect(env.MEILISEARCH_API_KEY).toBe(meili.MEILI_MASTER_KEY);
  });
});
