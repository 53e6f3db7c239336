import { startTestSystem, type TestSystem } from '../support/system';
import { newKey, newUser, updateKey } from './keys-support';
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

  it('refuses lowering a quota below what the key has already used', async () => {
    if (!t) return;
    const user = await newUser(t);
    const created = await newKey(t, user.token, { quota: '5' });
    for (let i = 0; i < 2; i += 1) expect((await send(t, 'POST', '/v1/agent/demo-agent/sync', { key: created.key, body: hello() })).status).toBe(200);

    const tooLow = await updateKey(t, user.token, created.id, { quota: '1' });
    expect(tooLow.status).toBe(422);
    expect(tooLow.body.detail[0].loc).toEqual(['body', 'quota']);

    const exact = await updateKey(t, user.token, created.id, { quota: '2' });
    expect(exact.status).toBe(200);
    expect(exact.body.data).toMatchObject({ quota: 2, used_quota: 2, remaining_quota: 0 });
  });
});
