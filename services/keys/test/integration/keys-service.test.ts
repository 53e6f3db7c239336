import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGrpcClient, createMemoryBus, KEY_CHANGED_SUBJECTS, silentLogger, type BusMessage, type GrpcClient, type KeyChangedEvent, type ServiceHandle } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { KeysClient } from '@tollgate/protos/keys';
import { keysService } from '../../src/service';
import { admitRequest, startBilling, taskNo, type BillingHarness } from '../../../billing/test/integration/harness';

// The keys service over real gRPC and PostgreSQL: bootstrap under concurrent starts, quota vs used, events.
describe('keys service', () => {
  const db = useTestDatabase();
  const dirs: string[] = [];
  const handles: ServiceHandle[] = [];
  const bus = createMemoryBus();
  // The real billing service, which holds a key's quota when it changes.
  let billing: BillingHarness | null = null;
  beforeAll(async () => {
    billing = await startBilling();
  });

  const start = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'keys-svc-'));
    dirs.push(dataDir);
    const config = keysService.loadConfig({ DATABASE_URL: db.url, GRPC_PORT: '0', TOLLGATE_DATA_DIR: dataDir, BILLING_GRPC_ADDR: billing?.handle.address ?? '127.0.0.1:9', ...env });
    const handle = await keysService.start(config, { bus, log: silentLogger() });
    handles.push(handle);
    return { handle, dataDir, client: createGrpcClient(KeysClient, handle.address) };
  };

  afterAll(async () => {
    for (const h of handles) await h.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await bus.close();
    await billing?.stop();
  });

  let client: GrpcClient<KeysClient>;
  let adminToken: string;

  it('two replicas starting at once make one bootstrap admin, with the token in one data folder', async () => {
    if (!db.available) return;
    const [a, b] = await Promise.all([start({}), start({})]);
    const files = [a.dataDir, b.dataDir].map((d) => join(d, 'admin-token')).filter(existsSync);
    expect(files).toHaveLength(1);
    adminToken = readFileSync(files[0], 'utf8').trim();
    const admin = await a.client.authenticateUser({ token: adminToken });
    expect(admin).toMatchObject({ bootstrap: true, permissions: { admin: true }, status: '启用' });
    const listed = await b.client.listAccounts({ actor: { accountId: admin.id, isAdmin: true, apiKeyId: 0 }, status: '', level: '' });
    expect(listed.items.filter((x) => x.bootstrap)).toHaveLength(1);
    client = a.client;
  });

  it('a later start without TOLLGATE_ADMIN_TOKEN keeps the token; with it, the token is replaced', async () => {
    if (!db.available) return;
    const again = await start({});
    expect(existsSync(join(again.dataDir, 'admin-token'))).toBe(false);
    await expect(again.client.authenticateUser({ token: adminToken })).resolves.toMatchObject({ bootstrap: true });

    const fixed = 'fixed-admin-token-for-the-test-0001';
    const withEnv = await start({ TOLLGATE_ADMIN_TOKEN: fixed });
    await expect(withEnv.client.authenticateUser({ token: fixed })).resolves.toMatchObject({ bootstrap: true });
    await expect(withEnv.client.authenticateUser({ token: adminToken })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    adminToken = fixed;
  });

  it('refuses a quota below what billing holds as used + reserved (422 on body.quota), accepts one equal to it, and billing holds it', async () => {
    if (!db.available || !billing) return;
    const admin = await client.authenticateUser({ token: adminToken });
    const actor = { accountId: admin.id, isAdmin: true, apiKeyId: 0 };
    const { key } = await client.createKey({ actor, name: 'k', channel: '', group: '', quota: '10', comments: '', allowedKinds: [], accountId: 0 });
    const admitOne = () => billing!.client.admit(admitRequest({ apiKeyId: key!.id, accountId: admin.id, quota: '10', rpmLimit: 100_000, concurrencyLimit: 100_000, taskNumber: taskNo('keys') }));
    for (let i = 0; i < 5; i++) await admitOne();
    const err = await client.updateKey({ actor, apiKeyId: key!.id, quota: '4.999999' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', details: { issues: [{ loc: ['body', 'quota'], type: 'less_than_used' }] } });
    await expect(client.updateKey({ actor, apiKeyId: key!.id, name: 'still 10' })).resolves.toMatchObject({ quota: '10' });
    await expect(client.updateKey({ actor, apiKeyId: key!.id, quota: '5' })).resolves.toMatchObject({ quota: '5' });
    // An admission that still carries the old quota 10 is refused: billing holds 5.
    await expect(admitOne()).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    const [usage] = await billing.sql<{ quota: string }>('SELECT quota::text FROM key_usage WHERE api_key_id = $1', [key!.id]);
    expect(Number(usage.quota)).toBe(5);
  });

  it('carries non-ASCII field messages across gRPC', async () => {
    if (!db.available) return;
    const admin = await client.authenticateUser({ token: adminToken });
    const err = await client.listKeys({ actor: { accountId: admin.id, isAdmin: true, apiKeyId: 0 }, channel: '', status: '停用', accountId: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', details: { issues: [{ loc: ['body', 'status'], msg: 'status must be one of 启用, 禁用' }] } });
  });

  it('publishes keys.changed for every key change and for an account with its keys on delete', async () => {
    if (!db.available) return;
    const seen: string[] = [];
    const sub = await bus.watch<KeyChangedEvent>(KEY_CHANGED_SUBJECTS, (m: BusMessage<KeyChangedEvent>) => seen.push(`${m.subject}|${m.data.entity}:${m.data.id}`));
    const admin = await client.authenticateUser({ token: adminToken });
    const actor = { accountId: admin.id, isAdmin: true, apiKeyId: 0 };
    const { account } = await client.createAccount({ actor, name: 'u', email: 'u@example.com', level: 'pro' });
    const owner = { accountId: account!.id, isAdmin: false, apiKeyId: 0 };
    const { key } = await client.createKey({ actor: owner, name: 'k', channel: '', group: '', comments: '', allowedKinds: [], accountId: 0 });
    await client.updateKey({ actor: owner, apiKeyId: key!.id, name: 'k2' });
    await client.deleteAccount({ actor, accountId: account!.id });
    await new Promise((r) => setTimeout(r, 20));
    await sub.stop();
    const k = key!.id;
    const a = account!.id;
    expect(seen).toEqual([`keys.changed.key.${k}|key:${k}`, `keys.changed.key.${k}|key:${k}`, `keys.changed.account.${a}|account:${a}`, `keys.changed.key.${k}|key:${k}`]);
  });
});
