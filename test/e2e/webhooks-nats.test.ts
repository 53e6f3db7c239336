import { randomBytes } from 'node:crypto';
import { natsUrlForTests, warnNatsSkipped } from '@tollgate/kit/src/testing/nats';
import { startTestSystem, type TestSystem } from '../support/system';
import { call, eventually } from './docs-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send } from './tasks-support';
import { received, startReceiver, subscribe, verifies, type Receiver } from './webhooks-support';

// With NATS JetStream as the bus (the distributed mode's), webhooks consume task and document
// events through durable consumers.
describe('webhooks over NATS JetStream', () => {
  let t: TestSystem | null = null;
  let rcv: Receiver;

  beforeAll(async () => {
    const natsUrl = await natsUrlForTests();
    if (!natsUrl) {
      warnNatsSkipped('webhooks over NATS JetStream');
      return;
    }
    t = await startTestSystem({ ...TASKS_TEST_ENV, NATS_URL: natsUrl, NATS_PREFIX: `wh${randomBytes(4).toString('hex')}`, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '100' });
    rcv = await startReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await rcv?.close();
  });

  it('delivers a document event and a task event', async () => {
    if (!t) return;
    const me = await newAccountWithKey(t);
    const changes: any[] = [];
    const watching = await t.system.bus.watch('webhooks.changed.>', (m) => changes.push(m.data));
    const sub = await subscribe(t, me.token, `${rcv.url}/nats`, ['document.created', 'task.completed']);
    const created = await eventually(async () => changes.find((c) => c.id === sub.id), 'webhooks.changed for the new subscription');
    expect(created).toMatchObject({ change: 'created', account_id: me.accountId, by_account_id: me.accountId });
    await watching.stop();
    const doc = await call(t, 'POST', '/api/v1/documents', me.token, { title: 'Over NATS', content: 'x' });
    expect(doc.status).toBe(201);
    const d = await received(rcv, (x) => x.body.type === 'document.created' && x.body.data.id === doc.body.data.id, 'the document event');
    expect(verifies(d, sub.secret)).toBe(true);
    const task = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: hello('over nats') });
    const done = await received(rcv, (x) => x.body.type === 'task.completed' && x.body.data.task_number === task.body.task_number, 'the task event');
    expect(done.body.data.status).toBe('已完成');
  });
});
