import { startTestSystem, type TestSystem } from '../support/system';
import { newKey, newUser, updateKey } from './keys-support';
import { settledUsedQuota } from './passthrough-support';
import { TASKS_TEST_ENV, hello, send, waitForStatus } from './tasks-support';

// Check 6 (quota) guards calls that spend; a key whose quota is used up can still read and
// follow the tasks it already paid for.
describe('an exhausted key and its own tasks', () => {
  let t: TestSystem | null;
  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is refused a new execution with 429 but may still query its tasks', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = (await newKey(t, user.token, { quota: '1' })).key as string;

    const submitted = await send(t, 'POST', '/v1/agent/demo-agent/async', { key, body: hello() });
    expect(submitted.status).toBe(200);
    const taskNumber = submitted.body.task_number as string;
    await waitForStatus(t, key, taskNumber, ['已完成']);

    const again = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello() });
    expect(again.status).toBe(429);
    expect(again.body.detail).toMatch(/insufficient quota/);

    const read = await send(t, 'GET', `/v1/task-query/${taskNumber}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('已完成');

    const listed = await send(t, 'POST', '/v1/task-query/list', { key, body: {} });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { task_number: string }) => i.task_number)).toContain(taskNumber);
  });

  /** GetUsage calls billing has answered so far (its gRPC server's own counter). */
  async function usageLookups(sys: TestSystem): Promise<number> {
    const text = await sys.system.services.billing.metrics.metrics();
    return text
      .split('\n')
      .filter((l) => l.startsWith('grpc_server_handled_total{') && l.includes('GetUsage'))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  }

  it('checks the quota from what billing last said, asking again at most once per key per second', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = (await newKey(t, user.token, { quota: '1000' })).key as string;
    const before = await usageLookups(t);
    const started = Date.now();
    for (let i = 0; i < 30; i += 1) expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello() })).status).toBe(200);
    await Promise.all(Array.from({ length: 30 }, () => send(t!, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello() }).then((r) => expect(r.status).toBe(200))));
    const seconds = Math.ceil((Date.now() - started) / 1000);
    // One lookup to start with, then at most one per second of the run: not one per request.
    expect(await usageLookups(t)).toBeLessThanOrEqual(before + 1 + seconds);
  });

  it('refuses a key the moment its quota is used up, though the gateway last saw it with quota left', async () => {
    if (!t) return;
    const user = await newUser(t);
    const key = (await newKey(t, user.token, { quota: '1' })).key as string;
    // The gateway has seen this key's usage at 0 ...
    expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello() })).status).toBe(200);
    // ... and billing's admission refuses the next one at once, with the same 429.
    const refused = await send(t, 'POST', '/v1/agent/demo-agent/sync', { key, body: hello() });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/insufficient quota/);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });

  it('refuses lowering a quota below what the key has already used', async () => {
    if (!t) return;
    const user = await newUser(t);
    const created = await newKey(t, user.token, { quota: '5' });
    for (let i = 0; i < 2; i += 1) expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: created.key, body: hello() })).status).toBe(200);
    // A sync answer does not wait for its settlement (it rides along with the next admission, or goes within TASKS_SETTLE_LINGER_MS).
    expect(await settledUsedQuota(t, { id: created.id, token: user.token, key: created.key }, 2)).toBe(2);

    const tooLow = await updateKey(t, user.token, created.id, { quota: '1' });
    expect(tooLow.status).toBe(422);
    expect(tooLow.body.detail[0].loc).toEqual(['body', 'quota']);

    const exact = await updateKey(t, user.token, created.id, { quota: '2' });
    expect(exact.status).toBe(200);
    expect(exact.body.data).toMatchObject({ quota: 2, used_quota: 2, remaining_quota: 0 });
  });
});
