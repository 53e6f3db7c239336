import { createGrpcClient, createMemoryBus, silentLogger, type BusMessage, type DocumentEvent, type EventBus, type GrpcClient, type ServiceHandle } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { DocsClient } from '@tollgate/protos/docs';
import { docsService } from '../../src/service';
import { loadDocsConfig } from '../../src/config';

/** A bus whose publish can be switched off, standing in for a NATS outage in front of the real in-process bus. */
export interface FlakyBus extends EventBus {
  down: boolean;
}

export function flaky(bus: EventBus): FlakyBus {
  const wrapper: FlakyBus = {
    down: false,
    publish: (subject, data, opts) => (wrapper.down ? Promise.reject(new Error('bus unavailable (test outage)')) : bus.publish(subject, data, opts)),
    subscribe: (opts) => bus.subscribe(opts),
    watch: (subjects, handler) => bus.watch(subjects, handler),
    close: () => bus.close(),
  };
  return wrapper;
}

export interface DocsHarness {
  client: GrpcClient<DocsClient>;
  /** The service's gRPC address (the Site service is served there too). */
  address: string;
  bus: FlakyBus;
  events: DocumentEvent[];
  databaseUrl: string;
  stop(): Promise<void>;
}

/** The docs service on a fresh database and the in-process bus; null without PostgreSQL. */
export async function startDocs(env: NodeJS.ProcessEnv = {}): Promise<DocsHarness | null> {
  const url = await createTestDatabase('docs');
  if (!url) return null;
  const bus = flaky(createMemoryBus());
  const events: DocumentEvent[] = [];
  const sub = await bus.subscribe<DocumentEvent>({ durable: 'docs-test', subjects: 'docs.document.*', handler: async (m: BusMessage<DocumentEvent>) => void events.push(m.data) });
  const handle: ServiceHandle = await docsService.start(loadDocsConfig({ DATABASE_URL: url, GRPC_PORT: '0', DOCS_OUTBOX_POLL_MS: '50', ...env }), { bus, log: silentLogger() });
  const client = createGrpcClient(DocsClient, handle.address, { timeoutMs: 10_000 });
  return {
    client,
    address: handle.address,
    bus,
    events,
    databaseUrl: url,
    stop: async () => {
      client.close();
      await handle.stop();
      await sub.stop();
      await bus.close();
      await dropTestDatabase(url);
      await releaseTestPostgres();
    },
  };
}

/** Resolves once `check` returns a value, polling until a deadline (never a fixed sleep). */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
