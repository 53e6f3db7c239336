import pg from 'pg';
import { createGrpcClient, createMemoryBus, silentLogger, type EventBus, type GrpcClient, type ServiceHandle } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { BillingClient } from '@tollgate/protos/billing';
import { billingService } from '../../src/service';
import { loadBillingConfig } from '../../src/config';

export interface BillingHarness {
  client: GrpcClient<BillingClient>;
  bus: EventBus;
  handle: ServiceHandle;
  url: string;
  /** A direct connection to billing's database, for assertions and back-dated fixtures. */
  sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Stops the service, waits `downMs`, and starts it again on the same address and database. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The real billing service (migrations, gRPC server on a free loopback port, bus subscription)
 * on a fresh PostgreSQL database; null when no PostgreSQL is available.
 */
export async function startBilling(env: NodeJS.ProcessEnv = {}): Promise<BillingHarness | null> {
  const url = await createTestDatabase('billing');
  if (!url) return null;
  const bus = createMemoryBus();
  const config = loadBillingConfig({ DATABASE_URL: url, GRPC_PORT: '0', LOG_LEVEL: 'silent', ...env });
  let handle = await billingService.start(config, { bus, log: silentLogger() });
  const address = handle.address;
  const client = createGrpcClient(BillingClient, address, { timeoutMs: 60_000 });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  return {
    client,
    bus,
    get handle() {
      return handle;
    },
    url,
    restart: async (downMs) => {
      await handle.stop();
      await new Promise((r) => setTimeout(r, downMs));
      handle = await billingService.start(loadBillingConfig({ DATABASE_URL: url, GRPC_PORT: address.split(':').pop(), LOG_LEVEL: 'silent', ...env }), { bus, log: silentLogger() });
    },
    sql: async (text, values) => (await pool.query(text, values)).rows,
    stop: async () => {
      client.close();
      await handle.stop();
      await bus.close();
      await pool.end();
      await dropTestDatabase(url);
      await releaseTestPostgres();
    },
  };
}

let seq = 0;
/** A task number unique within the test run. */
export const taskNo = (label = 't') => `${label}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

export const admitRequest = (over: Partial<Parameters<GrpcClient<BillingClient>['admit']>[0]> = {}) => ({
  apiKeyId: 1,
  accountId: 1,
  kind: 'agent',
  appId: 'demo-app',
  taskNumber: taskNo(),
  quota: '',
  rpmLimit: 0,
  concurrencyLimit: 0,
  basis: '',
  level: 'free',
  estimatedInputTokens: 0,
  estimatedOutputTokens: 0,
  estimatedSeconds: 0,
  leaseSeconds: 0,
  ...over,
});

/** Resolves with the AppError a call rejected with; fails the test if it succeeded. */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

/** Waits until `check` returns a value (not a timing assertion: it only bounds how long to wait). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
