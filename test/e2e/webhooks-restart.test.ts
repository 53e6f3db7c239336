import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES, silentLogger } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { loadSystemConfig, startEmbeddedSystem } from '@tollgate/system';
import { fetchTrusting } from '../support/https';
import { TEST_ADMIN_TOKEN, type TestSystem } from '../support/system';
import { call, eventually } from './docs-support';
import { TASKS_TEST_ENV, newAccountWithKey } from './tasks-support';
import { deliveries, received, startReceiver, subscribe, verifies, type Receiver } from './webhooks-support';

const ENV = { ...TASKS_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_MAX_ATTEMPTS: '20', WEBHOOK_POLL_MS: '100' };

// Deliveries are rows in the tasks database: a restart while one is being retried loses nothing.
describe('webhook deliveries across a restart', () => {
  const urls: Record<string, string> = {};
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-webhooks-'));
  let available = true;
  let rcv: Receiver;

  const start = async (): Promise<TestSystem> => {
    const env = { TOLLGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...urls, ...ENV, TOLLGATE_DATA_DIR: dataDir };
    const system = await startEmbeddedSystem({ config: loadSystemConfig({ PORT: '0', HTTPS_PORT: '0', ...env }), log: silentLogger(), env });
    return { system, http: system.gateway.httpUrl, https: system.gateway.httpsUrl!, httpsFetch: fetchTrusting(system.gateway.tlsCert!), adminToken: TEST_ADMIN_TOKEN, stop: () => system.stop() };
  };

  beforeAll(async () => {
    for (const name of SERVICE_NAMES) {
      const url = await createTestDatabase(`wh_${name}`);
      if (!url) {
        available = false;
        return;
      }
      urls[`DATABASE_URL_${name.toUpperCase()}`] = url;
    }
    rcv = await startReceiver();
  });
  afterAll(async () => {
    await rcv?.close();
    for (const url of Object.values(urls)) await dropTestDatabase(url);
    await releaseTestPostgres();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers after the restart the event whose attempts failed before it, with the same id', async () => {
    if (!available) return;
    let t = await start();
    let me: Awaited<ReturnType<typeof newAccountWithKey>>;
    let sub: { id: string; secret: string };
    let docId: number;
    try {
      me = await newAccountWithKey(t);
      sub = await subscribe(t, me.token, `${rcv.url}/restart`, ['document.created']);
      rcv.answer = () => 500;
      const doc = await call(t, 'POST', '/api/v1/documents', me.token, { title: 'Survives a restart', content: 'x' });
      expect(doc.status).toBe(201);
      docId = doc.body.data.id;
      await eventually(async () => (rcv.got.length >= 2 ? true : undefined), 'two failed attempts before the restart');
      const [pending] = await deliveries(t, me.token, sub.id);
      expect(pending.status).toBe('pending');
      expect(pending.next_retry_at).not.toBeNull();
    } finally {
      await t.stop();
    }

    const before = rcv.got.length;
    rcv.answer = () => 200;
    t = await start();
    try {
      const after = await received(rcv, (x) => rcv.got.indexOf(x) >= before && x.body.data?.id === docId, 'the delivery after the restart', 30_000);
      expect(after.body.id).toBe(rcv.got[0].body.id);
      expect(after.raw).toBe(rcv.got[0].raw);
      expect(verifies(after, sub.secret)).toBe(true);
      const [done] = await eventually(async () => {
        const list = await deliveries(t, me.token, sub.id);
        return list[0]?.status === 'succeeded' ? list : undefined;
      }, 'the delivery recorded as succeeded');
      expect(done.attempts).toBe(before + 1);
      expect(done.attempt_log.at(-1).status_code).toBe(200);
      expect(rcv.got.filter((x) => x.body.data?.id === docId && rcv.got.indexOf(x) >= before)).toHaveLength(1);
    } finally {
      await t.stop();
    }
  });
});
