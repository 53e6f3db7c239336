import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { ProbeClient } from '@tollgate/protos/common';
import { DocsClient, DocsService } from '@tollgate/protos/docs';
import { AppError, createGrpcClient, implement, silentLogger, startServiceRuntime, type ServiceHandle } from '../src';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '../src/testing/postgres';

/** The value of one series in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const have = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

type MethodDef = { path: string; responseStream: boolean; requestDeserialize(b: Buffer): unknown };
/** A request message with every field at its default, whatever the method's type. */
const emptyRequest = (name: string) => (DocsService as unknown as Record<string, MethodDef>)[name].requestDeserialize(Buffer.alloc(0));
const docsMethods = Object.entries(DocsService as unknown as Record<string, MethodDef>);
const unaryName = docsMethods.find(([, m]) => !m.responseStream)![0];
const streamEntry = docsMethods.find(([, m]) => m.responseStream);

// A real service runtime (real PostgreSQL, real gRPC over loopback) with its /metrics listener.
describe('service metrics', () => {
  let url: string | null;
  let handle: ServiceHandle | undefined;
  const migrations = mkdtempSync(join(tmpdir(), 'tollgate-metrics-migrations-'));

  beforeAll(async () => {
    url = await createTestDatabase('metrics');
    if (!url) return;
    const handlers = Object.fromEntries(
      docsMethods.map(([name, m]) => [name, m.responseStream ? async () => undefined : async () => Promise.reject(AppError.notFound('no such thing'))]),
    );
    handle = await startServiceRuntime({
      name: 'docs',
      config: { databaseUrl: url, grpcHost: '127.0.0.1', grpcPort: 0, logLevel: 'silent', metricsPort: 0, shutdownGraceMs: 1_000 },
      log: silentLogger(),
      migrationsDir: migrations,
      createDb: (connectionString) => {
        const pool = new Pool({ connectionString, max: 2 });
        return {
          $queryRawUnsafe: async <T>(sql: string) => (await pool.query(sql)).rows as T,
          $disconnect: () => pool.end(),
        };
      },
      build: () => ({ services: [{ definition: DocsService, implementation: implement(DocsService, handlers as never, silentLogger()) }] }),
    });
  });
  afterAll(async () => {
    await handle?.stop();
    if (url) await dropTestDatabase(url);
    await releaseTestPostgres();
    rmSync(migrations, { recursive: true, force: true });
  });

  const scrape = async () => {
    const res = await fetch(handle!.metricsUrl!);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('counts gRPC calls by method and status code, and times them', async () => {
    if (!handle) return;
    const probe = createGrpcClient(ProbeClient, handle.address);
    const docs = createGrpcClient(DocsClient, handle.address);
    try {
      await probe.ping({});
      await probe.ping({});
      await expect((docs as any)[unaryName](emptyRequest(unaryName))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      probe.close();
      docs.close();
    }
    const text = await scrape();
    expect(sample(text, 'grpc_server_handled_total', { method: '/tollgate.common.v1.Probe/Ping', code: 'OK', service: 'docs' })).toBe(2);
    const unaryPath = (DocsService as unknown as Record<string, MethodDef>)[unaryName].path;
    expect(sample(text, 'grpc_server_handled_total', { method: unaryPath, code: 'NOT_FOUND' })).toBe(1);
    expect(sample(text, 'grpc_server_handling_seconds_count', { method: '/tollgate.common.v1.Probe/Ping' })).toBe(2);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('counts a finished server stream as OK', async () => {
    if (!handle || !streamEntry) return;
    const docs = createGrpcClient(DocsClient, handle.address);
    try {
      const stream = (docs as any)[streamEntry[0]](emptyRequest(streamEntry[0])) as NodeJS.ReadableStream;
      await new Promise<void>((resolve, reject) => {
        stream.on('data', () => undefined);
        stream.on('end', resolve);
        stream.on('error', reject);
      });
    } finally {
      docs.close();
    }
    expect(sample(await scrape(), 'grpc_server_handled_total', { method: streamEntry[1].path, code: 'OK' })).toBe(1);
  });

  it('answers only GET /metrics on the metrics port', async () => {
    if (!handle) return;
    const other = await fetch(handle.metricsUrl!.replace('/metrics', '/admin'));
    expect(other.status).toBe(404);
    const post = await fetch(handle.metricsUrl!, { method: 'POST' });
    expect(post.status).toBe(404);
  });
});

describe('service metrics port setting', () => {
  it('is off unless METRICS_PORT is set, and must be a port number', async () => {
    const { serviceConfigSchema } = await import('../src/service/base-config');
    const schema = serviceConfigSchema('docs', {}, () => ({}));
    expect(schema.parse({ DATABASE_URL: 'postgres://x/y' }).metricsPort).toBeUndefined();
    expect(schema.parse({ DATABASE_URL: 'postgres://x/y', METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(schema.safeParse({ DATABASE_URL: 'postgres://x/y', METRICS_PORT: 'ninety' }).success).toBe(false);
    expect(schema.safeParse({ DATABASE_URL: 'postgres://x/y', METRICS_PORT: '70000' }).success).toBe(false);
  });
});
