import { startTestSystem, type TestSystem } from '../support/system';
import { usedQuota } from './passthrough-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send } from './tasks-support';

// An administrator may set a waiting async task to 执行中 by hand. Nobody runs it then: once the
// lease it was given runs out, a worker claims it, runs it and settles it, and the owner's
// concurrency slot is free again.
describe('a waiting task started by hand', () => {
  let t: TestSystem | null;
  let adminKey: string;
  beforeAll(async () => {
    t = await startTestSystem({ ...TASKS_TEST_ENV, TASKS_WORKERS: '1', TASKS_LEASE_MS: '1500' });
    if (!t) return;
    const form = new URLSearchParams({ token: t.adminToken, name: 'admin key' });
    adminKey = ((await (await fetch(`${t.http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })).json()) as { data: { key: string } }).data.key;
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function statusOf(key: string, taskNumber: string, wanted: string[], withinMs: number): Promise<any> {
    const until = Date.now() + withinMs;
    for (;;) {
      const r = await send(t!, 'GET', `/v1/task-query/${taskNumber}`, { key });
      if (wanted.includes(r.body.status) || Date.now() > until) return r.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('is claimed and run by a worker once its lease runs out, charged once', async () => {
    if (!t) return;
    const me = await newAccountWithKey(t);
    const busy = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: { ...hello('w1 w2 w3 w4 w5 w6 w7 w8'), call_params: { echo_delay_ms: 150 } } });
    expect((await statusOf(me.key, busy.body.task_number, ['执行中'], 5_000)).status).toBe('执行中');
    const waiting = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: hello('started by hand') });
    expect((await send(t, 'GET', `/v1/task-query/${waiting.body.task_number}`, { key: me.key })).body.status).toBe('等待中');

    const started = await send(t, 'POST', '/v1/task-status/update', { key: adminKey, body: { task_number: waiting.body.task_number, status: '执行中' } });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('执行中');

    const done = await statusOf(me.key, waiting.body.task_number, ['已完成', '已报错', '已取消'], 15_000);
    expect(done).toMatchObject({ status: '已完成', task_result: { choices: [{ message: { content: 'Echo: started by hand' } }] } });
    await statusOf(me.key, busy.body.task_number, ['已完成'], 10_000);
    const key = { id: me.keyId, token: me.token, key: me.key };
    for (let i = 0; i < 100 && (await usedQuota(t, key)) !== 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await usedQuota(t, key)).toBe(2);
  });
});
