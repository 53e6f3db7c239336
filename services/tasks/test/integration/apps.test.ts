import { AppError, createMemoryBus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import type { App } from '@tollgate/protos/tasks';
import { admin, exec, owner, startReplica, stranger } from '../support/replica';

const app = (fields: Partial<App>): App => ({ appId: '', kind: 'agent', name: 'an app', ownerAccountId: 0, provider: 'echo', model: '', systemPrompt: '', settings: {}, public: false, createdAt: '', updatedAt: '', baseUrl: '', apiKey: '', hasApiKey: false, timeoutMs: 0, reporterToken: '', ...fields });
const codeOf = (p: Promise<unknown>) => p.then(() => 'OK', (e: AppError) => e.code);

// Apps over real gRPC and PostgreSQL: the demo seed, ownership, validation.
describe('apps', () => {
  const db = useTestDatabase();
  const bus = createMemoryBus();

  it('seeds the demo apps once and leaves an edited demo app alone on the next start', async () => {
    if (!db.available) return;
    const first = await startReplica(db.url, bus, { TASKS_WORKERS: '0' });
    await first.client.updateApp({ actor: admin, appId: 'demo-agent', patch: { systemPrompt: 'edited by an admin' } });
    await first.stop();
    const second = await startReplica(db.url, bus, { TASKS_WORKERS: '0' });
    try {
      const listed = await second.client.listApps({ actor: stranger, kind: '' });
      expect(listed.items.map((a) => a.appId)).toEqual(['demo-agent', 'demo-aiapp', 'demo-chatbot', 'demo-workflow']);
      expect(listed.items.every((a) => a.public && a.provider === 'echo' && a.ownerAccountId === 0)).toBe(true);
      expect(listed.items[0].systemPrompt).toBe('edited by an admin');
    } finally {
      await second.stop();
    }
  });

  it('keeps private apps to their owner and changes to owners and admins', async () => {
    if (!db.available) return;
    const r = await startReplica(db.url, bus, { TASKS_WORKERS: '0', TASKS_SEED_DEMO_APPS: 'false' });
    try {
      const created = await r.client.createApp({ actor: owner, app: app({ appId: 'private-1', apiKey: 'sk-hidden', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }) });
      expect(created).toMatchObject({ ownerAccountId: owner.accountId, apiKey: '', hasApiKey: true });
      expect(await codeOf(r.client.getApp({ actor: stranger, appId: 'private-1' }))).toBe('NOT_FOUND');
      expect(await codeOf(r.client.executeSync(exec({ actor: stranger, appId: 'private-1', kind: 'agent' })))).toBe('NOT_FOUND');
      expect(await codeOf(r.client.deleteApp({ actor: stranger, appId: 'private-1' }))).toBe('NOT_FOUND');
      expect(await codeOf(r.client.getApp({ actor: admin, appId: 'private-1' }))).toBe('OK');
      expect(await codeOf(r.client.updateApp({ actor: owner, appId: 'private-1', patch: { public: true } }))).toBe('PERMISSION_DENIED');
      expect((await r.client.updateApp({ actor: admin, appId: 'private-1', patch: { public: true } })).public).toBe(true);
      expect(await codeOf(r.client.updateApp({ actor: stranger, appId: 'private-1', patch: { name: 'mine' } }))).toBe('PERMISSION_DENIED');
      expect(await codeOf(r.client.updateApp({ actor: owner, appId: 'private-1', patch: { baseUrl: 'ftp://nope' } }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(r.client.createApp({ actor: owner, app: app({ appId: 'x', kind: 'robot' }) }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(r.client.createApp({ actor: undefined, app: app({ appId: 'y' }) }))).toBe('UNAUTHENTICATED');
      expect((await r.client.deleteApp({ actor: owner, appId: 'private-1' })).appId).toBe('private-1');
    } finally {
      await r.stop();
    }
  });
});
