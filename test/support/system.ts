import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES, silentLogger, createLogger } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { loadSystemConfig, startEmbeddedSystem, type EmbeddedSystem } from '@tollgate/system';
import { fetchTrusting } from './https';

export interface TestSystem {
  system: EmbeddedSystem;
  /** Plain HTTP base URL of the gateway. */
  http: string;
  /** HTTPS base URL of the gateway. */
  https: string;
  /** fetch that trusts the gateway's certificate. */
  httpsFetch: ReturnType<typeof fetchTrusting>;
  adminToken: string;
  stop(): Promise<void>;
}

export const TEST_ADMIN_TOKEN = 'tg-test-admin-token-0123456789abcdef';

/**
 * The whole system for an end-to-end test: a fresh database per service on the test PostgreSQL,
 * the in-process bus, gateway on free ports. Returns null (after a loud warning) without PostgreSQL.
 */
export async function startTestSystem(env: NodeJS.ProcessEnv = {}): Promise<TestSystem | null> {
  const urls: Record<string, string> = {};
  for (const name of SERVICE_NAMES) {
    const url = await createTestDatabase(`e2e_${name}`);
    if (!url) return null;
    urls[`DATABASE_URL_${name.toUpperCase()}`] = url;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-e2e-'));
  const log = process.env.TEST_LOG_LEVEL ? createLogger({ name: 'e2e', level: process.env.TEST_LOG_LEVEL }) : silentLogger();
  const fullEnv = { TOLLGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...urls, ...env, TOLLGATE_DATA_DIR: dataDir };
  const config = loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...fullEnv });
  const system = await startEmbeddedSystem({ config, log, env: fullEnv });
  return {
    system,
    http: system.gateway.httpUrl,
    https: system.gateway.httpsUrl!,
    httpsFetch: fetchTrusting(system.gateway.tlsCert!),
    adminToken: fullEnv.TOLLGATE_ADMIN_TOKEN,
    stop: async () => {
      await system.stop();
      for (const url of Object.values(urls)) await dropTestDatabase(url);
      await releaseTestPostgres();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
