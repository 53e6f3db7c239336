import { billingSql } from './billing-support';
import { startTestSystem, type TestSystem } from '../support/system';
import { expectEnvelope } from './docs-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send, waitForStatus } from './tasks-support';
import { endedDeliveryTo, hooks, startReceiver, type Receiver } from './webhooks-support';

// The production default: loopback, private and link-local receivers are refused, when subscribing and when delivering.
describe('webhooks without WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  let t: TestSystem | null;
  let me: Awaited<ReturnType<typeof newAccountWithKey>>;
  let rcv: Receiver;

  beforeAll(async () => {
    t = await startTestSystem({ ...TASKS_TEST_ENV, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_POLL_MS: '100' });
    if (!t) return;
    me = await newAccountWithKey(t);
    rcv = await startReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await rcv?.close();
  });

  it('refuses a loopback, private or link-local URL, also one whose name resolves to loopback', async () => {
    if (!t) return;
    const port = new URL(rcv.url).port;
    for (const url of [rcv.url, `http://localhost:${port}/`, 'http://10.0.0.8/hook', 'http://192.168.1.10/', 'http://[::1]/', 'http://0.0.0.0/', 'http://169.254.169.254/']) {
      const r = await hooks(t, 'POST', '', me.token, { url, events: ['*'] });
      expectEnvelope(r, 422);
      expect(r.body.message).toMatch(/refused/);
    }
    expect((await hooks(t, 'GET', '', me.token)).body.data.webhooks).toEqual([]);
  });

  it('refuses a per-submission webhook to a loopback, private or metadata address when it is submitted (422, no task, nothing charged)', async () => {
    if (!t) return;
    const tasks = async () => (await send(t!, 'POST', '/v1/task-query/list', { key: me.key, body: {} })).body.total;
    const before = await tasks();
    for (const webhook of [`${rcv.url}/private`, 'http://10.0.0.8/hook', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://[::ffff:169.254.169.254]/', 'http://metadata.google.internal/']) {
      const sub = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: { ...hello('never called back'), webhook } });
      expect(sub.status).toBe(422);
      expect(sub.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'webhook'], msg: expect.stringMatching(/refused/) })]);
    }
    expect(await tasks()).toBe(before);
    expect(await billingSql(t, 'SELECT 1 FROM admissions WHERE account_id = $1', [me.accountId])).toEqual([]);
  });

  it('refuses a per-submission webhook whose name resolves to loopback at delivery time, and records why', async () => {
    if (!t) return;
    // A name is checked on the address it resolves to, at connect time.
    const byName = `http://localhost:${new URL(rcv.url).port}/by-name`;
    const named = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: { ...hello('by name'), webhook: byName } });
    expect(named.status).toBe(200);
    const refused = await endedDeliveryTo(t, byName);
    expect(refused.status).toBe('failed');
    for (const e of refused.errors) expect(e).toMatch(/^refused: (127\.0\.0\.1|::1) is a loopback, private/);
    expect(rcv.got).toHaveLength(0);
  });
});
