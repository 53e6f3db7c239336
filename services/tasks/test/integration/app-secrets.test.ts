import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { AppError, createMemoryBus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import type { App } from '@tollgate/protos/tasks';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../test/support/fake-openai';
import { exec, owner, startReplica } from '../support/replica';

const app = (fields: Partial<App>): App => ({ appId: '', kind: 'agent', name: 'an app', ownerAccountId: 0, provider: 'echo', model: 'm', systemPrompt: '', settings: {}, public: false, createdAt: '', updatedAt: '', baseUrl: '', apiKey: '', hasApiKey: false, timeoutMs: 0, reporterToken: '', ...fields });
const codeOf = (p: Promise<unknown>) => p.then(() => 'OK', (e: AppError) => e.code);
const base = { TASKS_WORKERS: '0', TASKS_SEED_DEMO_APPS: 'false' };

// An app's upstream api_key never lies in the database in plain text; rows from before are sealed
// at start, and a key rotation re-seals every row with the new key.
describe('sealed app api_keys', () => {
  const db = useTestDatabase();
  const bus = createMemoryBus();
  let fake: FakeOpenAi;
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-secrets-'));
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function stored(id: string): Promise<string> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<{ api_key: string }>('SELECT api_key FROM apps WHERE id = $1', [id])).rows[0].api_key;
    } finally {
      await c.end();
    }
  }
  async function sql(text: string, values: unknown[]): Promise<void> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query(text, values).finally(() => c.end());
  }
  const lastAuthorization = () => fake.requests.at(-1)?.headers.authorization;

  it('seals with the data folder key file (mode 0600), reads it back, and seals plain rows from before', async () => {
    if (!db.available) return;
    // the row is changed behind the service's back below: its app catalogue must not keep it in memory
    const r = await startReplica(db.url, bus, { ...base, TOLLGATE_DATA_DIR: dataDir, TASKS_APP_CACHE_MS: '1' });
    try {
      expect(statSync(join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
      await r.client.createApp({ actor: owner, app: app({ appId: 'sealed-1', provider: 'openai-compatible', baseUrl: fake.baseUrl, apiKey: 'sk-upstream-secret-1' }) });
      const raw = await stored('sealed-1');
      expect(raw).toMatch(/^enc:v1:[0-9a-f]{8}:/);
      expect(raw).not.toContain('sk-upstream-secret-1');
      await r.client.executeSync(exec({ appId: 'sealed-1', kind: 'agent' }));
      expect(lastAuthorization()).toBe('Bearer sk-upstream-secret-1');
      // A row written before sealing existed.
      await sql('UPDATE apps SET api_key = $1 WHERE id = $2', ['sk-legacy-plain', 'sealed-1']);
      await r.client.executeSync(exec({ appId: 'sealed-1', kind: 'agent' }));
      expect(lastAuthorization()).toBe('Bearer sk-legacy-plain');
    } finally {
      await r.stop();
    }
    const again = await startReplica(db.url, bus, { ...base, TOLLGATE_DATA_DIR: dataDir });
    try {
      expect(await stored('sealed-1')).toMatch(/^enc:v1:/);
      await again.client.executeSync(exec({ appId: 'sealed-1', kind: 'agent' }));
      expect(lastAuthorization()).toBe('Bearer sk-legacy-plain');
    } finally {
      await again.stop();
    }
  });

  it('rotates: the new key with the old one as previous re-seals every row; a wrong key cannot read them', async () => {
    if (!db.available) return;
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('hex');
    const first = await startReplica(db.url, bus, { ...base, TOLLGATE_SECRET_KEY: oldKey });
    await first.client.createApp({ actor: owner, app: app({ appId: 'rotated-1', provider: 'openai-compatible', baseUrl: fake.baseUrl, apiKey: 'sk-rotated' }) });
    const sealedOld = await stored('rotated-1');
    await first.stop();

    const withoutOld = await startReplica(db.url, bus, { ...base, TOLLGATE_SECRET_KEY: newKey });
    try {
      expect(await codeOf(withoutOld.client.executeSync(exec({ appId: 'rotated-1', kind: 'agent' })))).toBe('FAILED_PRECONDITION');
      expect(await stored('rotated-1')).toBe(sealedOld);
    } finally {
      await withoutOld.stop();
    }

    const rotating = await startReplica(db.url, bus, { ...base, TOLLGATE_SECRET_KEY: newKey, TOLLGATE_SECRET_KEY_PREVIOUS: oldKey });
    await rotating.stop();
    const resealed = await stored('rotated-1');
    expect(resealed).toMatch(/^enc:v1:/);
    expect(resealed).not.toBe(sealedOld);

    const after = await startReplica(db.url, bus, { ...base, TOLLGATE_SECRET_KEY: newKey });
    try {
      await after.client.executeSync(exec({ appId: 'rotated-1', kind: 'agent' }));
      expect(lastAuthorization()).toBe('Bearer sk-rotated');
    } finally {
      await after.stop();
    }
  });

  it('refuses a malformed TOLLGATE_SECRET_KEY at start', async () => {
    if (!db.available) return;
    for (const bad of ['short', 'a'.repeat(63), randomBytes(16).toString('base64')]) {
      await expect(startReplica(db.url, bus, { ...base, TOLLGATE_SECRET_KEY: bad })).rejects.toThrow(/TOLLGATE_SECRET_KEY/);
    }
  });
});
