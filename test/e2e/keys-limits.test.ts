import { startTestSystem, type TestSystem } from '../support/system';
import { newKey, newUser, postForm, updateKey } from './keys-support';
import { TASKS_TEST_ENV, hello, send } from './tasks-support';

const SYNC = '/v1/agent/demo-agent/sync';

/** The rpm window is the clock minute: keep a short burst inside one minute. */
async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
}

// A key's own rpm_limit / concurrency_limit, set through the public key forms and enforced at admission.
describe('per-key rate limits through /apikeys', () => {
  let t: TestSystem | null;
  let token: string;
  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    token = (await newUser(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('shows the limits on the key: set, null when not set or reset with 0 or empty', async () => {
    if (!t) return;
    const plain = await newKey(t, token);
    expect(plain).toMatchObject({ rpm_limit: null, concurrency_limit: null });
    const emptied = await newKey(t, token, { rpm_limit: '', concurrency_limit: '0' });
    expect(emptied).toMatchObject({ rpm_limit: null, concurrency_limit: null });

    const limited = await newKey(t, token, { rpm_limit: '30', concurrency_limit: '3' });
    expect(limited).toMatchObject({ rpm_limit: 30, concurrency_limit: 3 });
    const changed = await updateKey(t, token, limited.id, { concurrency_limit: '1000000' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ rpm_limit: 30, concurrency_limit: 1_000_000 });
    const listed = await postForm(t, '/apikeys/list', { token, page_size: '100' });
    expect(listed.body.data.items.find((k: { id: number }) => k.id === limited.id)).toMatchObject({ rpm_limit: 30, concurrency_limit: 1_000_000 });
    const reset = await updateKey(t, token, limited.id, { rpm_limit: '', concurrency_limit: '0' });
    expect(reset.body.data).toMatchObject({ rpm_limit: null, concurrency_limit: null });
  });

  it('refuses to lower the quota below what is used and reserved by executions under way', async () => {
    if (!t) return;
    const key = await newKey(t, token, { quota: '100' });
    const slow = { ...hello('a few slow words to echo back'), call_params: { echo_delay_ms: 200 } };
    const running = Array.from({ length: 5 }, () => send(t!, 'POST', SYNC, { key: key.key, body: slow }));
    await new Promise((r) => setTimeout(r, 300));
    const lowered = await updateKey(t, token, key.id, { quota: '3' });
    expect(lowered.status).toBe(422);
    expect(JSON.stringify(lowered.body)).toMatch(/reserved/);
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (let i = 0; ; i++) {
      const listed = await postForm(t, '/apikeys/list', { token, page_size: '100' });
      const now = listed.body.data.items.find((k: { id: number }) => k.id === key.id);
      if (Number(now.used_quota) === 5 || i > 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await updateKey(t, token, key.id, { quota: '4' })).status).toBe(422);
    const fits = await updateKey(t, token, key.id, { quota: '5' });
    expect(fits.status).toBe(200);
    expect(fits.body.data).toMatchObject({ quota: 5, used_quota: 5 });
  });

  it('never lets a key end above the quota it was given while its executions run: quota updates racing a burst', async () => {
    if (!t) return;
    for (let round = 0; round < 6; round++) {
      const key = await newKey(t, token, { quota: '20' });
      const burst = Array.from({ length: 150 }, () => send(t!, 'POST', SYNC, { key: key.key, body: hello('racing the quota') }));
      const updates = Array.from({ length: 20 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 3));
        return updateKey(t!, token, key.id, { quota: i % 2 === 0 ? '30' : '8' });
      });
      const answers = await Promise.all(burst);
      expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
      expect((await Promise.all(updates)).every((u) => u.status === 200 || u.status === 422)).toBe(true);
      const listed = await postForm(t, '/apikeys/list', { token, page_size: '100' });
      const now = listed.body.data.items.find((k: { id: number }) => k.id === key.id);
      expect(Number(now.used_quota)).toBe(answers.filter((r) => r.status === 200).length);
      expect(Number(now.used_quota)).toBeLessThanOrEqual(Number(now.quota));
      expect(Number(now.remaining_quota)).toBeGreaterThanOrEqual(0);
    }
  });

  it("refuses the third execution a minute with rpm_limit=2, and lets it through once reset to the level's default", async () => {
    if (!t) return;
    const created = await newKey(t, token, { rpm_limit: '2' });
    expect(created.rpm_limit).toBe(2);
    await awayFromMinuteEnd();
    for (let i = 0; i < 2; i += 1) expect((await send(t, 'POST', SYNC, { key: created.key, body: hello() })).status).toBe(200);

    const refused = await send(t, 'POST', SYNC, { key: created.key, body: hello() });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/2 requests per minute/) });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const reset = await updateKey(t, token, created.id, { rpm_limit: '0' });
    expect(reset.status).toBe(200);
    expect(reset.body.data.rpm_limit).toBeNull();
    expect((await send(t, 'POST', SYNC, { key: created.key, body: hello() })).status).toBe(200);
  });

  const expect422 = (r: { status: number; body: any }, field: string) => {
    expect(r.status).toBe(422);
    expect(Array.isArray(r.body.detail)).toBe(true);
    expect(r.body.detail.map((i: { loc: string[] }) => i.loc[i.loc.length - 1])).toContain(field);
  };

  it.each([
    ['negative', { rpm_limit: '-1' }, 'rpm_limit'],
    ['text', { rpm_limit: 'abc' }, 'rpm_limit'],
    ['a fraction', { rpm_limit: '2.5' }, 'rpm_limit'],
    ['over 1,000,000', { rpm_limit: '1000001' }, 'rpm_limit'],
    ['negative', { concurrency_limit: '-1' }, 'concurrency_limit'],
    ['text', { concurrency_limit: 'abc' }, 'concurrency_limit'],
    ['given twice', { concurrency_limit: ['1', '2'] }, 'concurrency_limit'],
  ])('422 for a %s limit on create and update', async (_label, fields, field) => {
    if (!t) return;
    expect422(await postForm(t, '/apikeys/create', { token, name: 'bad limits', ...fields }), field);
    const key = await newKey(t, token);
    expect422(await postForm(t, '/apikeys/update', { token, api_key_id: String(key.id), ...fields }), field);
  });
});
