import { createMemoryBus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { DEMO_SETTINGS } from '../../src/usecases/apps/seed-demo-apps';
import { admin, startReplica } from '../support/replica';

// Demo apps seeded by the first release had empty settings: a start gives them the current ones,
// but settings someone changed stay as they are.
describe('demo app settings', () => {
  const db = useTestDatabase();
  const bus = createMemoryBus();

  it('fills empty demo settings on start and leaves edited ones alone', async () => {
    if (!db.available) return;
    const first = await startReplica(db.url, bus, { TASKS_WORKERS: '0' });
    await first.client.updateApp({ actor: admin, appId: 'demo-chatbot', patch: { settings: {} } });
    await first.client.updateApp({ actor: admin, appId: 'demo-aiapp', patch: { settings: { template: 'Q: {{input}}' } } });
    expect((await first.client.getApp({ actor: admin, appId: 'demo-chatbot' })).settings).toEqual({});
    await first.stop();
    const second = await startReplica(db.url, bus, { TASKS_WORKERS: '0' });
    try {
      expect((await second.client.getApp({ actor: admin, appId: 'demo-chatbot' })).settings).toEqual(DEMO_SETTINGS.chatbot);
      expect((await second.client.getApp({ actor: admin, appId: 'demo-aiapp' })).settings).toEqual({ template: 'Q: {{input}}' });
    } finally {
      await second.stop();
    }
  });
});
