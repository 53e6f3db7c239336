import { Client } from 'pg';
import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql } from './billing-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send, waitForStatus } from './tasks-support';

// /v1/apps with user tokens, app visibility for execution, and apps run outside Tollgate that report back.
describe('apps', () => {
  let t: TestSystem | null;
  let owner: Awaited<ReturnType<typeof newAccountWithKey>>;
  let other: Awaited<ReturnType<typeof newAccountWithKey>>;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    [owner, other] = await Promise.all([newAccountWithKey(t), newAccountWithKey(t)]);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const apps = (method: string, path: string, token: string | undefined, body?: unknown) => send(t!, method, path, { key: token, body });

  it('lists the seeded public demo apps, one per kind, on the echo provider', async () => {
    if (!t) return;
    const r = await apps('GET', '/v1/apps?page_size=100', owner.token);
    expect(r.status).toBe(200);
    const demos = r.body.items.filter((a: { app_id: string }) => a.app_id.startsWith('demo-'));
    expect(demos.map((a: { app_id: string; kind: string; provider: string; public: boolean }) => [a.app_id, a.kind, a.provider, a.public])).toEqual([
      ['demo-agent', 'agent', 'echo', true],
      ['demo-aiapp', 'aiapp', 'echo', true],
      ['demo-chatbot', 'chatbot', 'echo', true],
      ['demo-workflow', 'workflow', 'echo', true],
    ]);
    expect((await apps('GET', '/v1/apps?kind=chatbot', owner.token)).body.items.map((a: { app_id: string }) => a.app_id)).toEqual(['demo-chatbot']);
  });

  it('creates, reads, updates and deletes an own app; the upstream key is never shown', async () => {
    if (!t) return;
    const created = await apps('POST', '/v1/apps', owner.token, { app_id: 'my-bot', kind: 'chatbot', name: 'My bot', provider: 'openai-compatible', model: 'gpt-x', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-secret', settings: { echo_delay_ms: 10 } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ app_id: 'my-bot', kind: 'chatbot', owner_account_id: owner.accountId, provider: 'openai-compatible', has_api_key: true, public: false, settings: { echo_delay_ms: 10 } });
    expect(created.text).not.toContain('sk-secret');
    expect((await apps('POST', '/v1/apps', owner.token, { app_id: 'my-bot', kind: 'agent', name: 'again' })).status).toBe(409);

    const patched = await apps('PATCH', '/v1/apps/my-bot', owner.token, { provider: 'echo', system_prompt: 'short answers' });
    expect(patched.body).toMatchObject({ provider: 'echo', system_prompt: 'short answers', model: 'gpt-x', kind: 'chatbot' });
    const run = await send(t, 'POST', '/v1/chatbot/my-bot/sync', { key: owner.key, body: hello('mine') });
    expect(run.body.choices[0].message.content).toBe('Echo: mine');

    expect((await apps('GET', '/v1/apps/my-bot', other.token)).status).toBe(404);
    expect((await apps('PATCH', '/v1/apps/my-bot', other.token, { name: 'stolen' })).status).toBe(404);
    expect((await send(t, 'POST', '/v1/chatbot/my-bot/sync', { key: other.key, body: hello() })).status).toBe(404);
    // One namespace of app ids: taken is taken, and the 409 tells nothing more of the private app.
    const taken = await apps('POST', '/v1/apps', other.token, { app_id: 'my-bot', kind: 'agent', name: 'mine too' });
    expect(taken.status).toBe(409);
    expect(taken.text).not.toMatch(/chatbot|gpt-x|My bot|owner|127\.0\.0\.1/);

    const deleted = await apps('DELETE', '/v1/apps/my-bot', owner.token);
    expect(deleted.status).toBe(200);
    expect((await apps('GET', '/v1/apps/my-bot', owner.token)).status).toBe(404);
    expect((await send(t, 'GET', `/v1/task-query/${run.body.task_number}`, { key: owner.key })).body.status).toBe('已完成');
  });

  it('validates apps field by field and keeps public apps for admins', async () => {
    if (!t) return;
    const bad = async (body: Record<string, unknown>) => {
      const r = await apps('POST', '/v1/apps', owner.token, { app_id: 'x1', kind: 'agent', name: 'x', ...body });
      return [r.status, r.body.detail?.[0]?.loc?.at(-1) ?? r.body.detail];
    };
    expect(await bad({ app_id: '-bad id' })).toEqual([422, 'app_id']);
    expect(await bad({ kind: 'robot' })).toEqual([422, 'kind']);
    expect(await bad({ provider: 'openai-compatible', model: 'm' })).toEqual([422, 'base_url']);
    // Apps may call private addresses (docs/tasks.md), but never a cloud metadata endpoint.
    for (const base_url of ['http://169.254.169.254/v1', 'http://[::ffff:169.254.169.254]/v1', 'http://[fd00:ec2::254]/v1', 'http://metadata.google.internal/v1']) {
      expect([base_url, ...(await bad({ provider: 'openai-compatible', model: 'm', base_url }))]).toEqual([base_url, 422, 'base_url']);
    }
    expect(await bad({ settings: { echo_delay_ms: 'slow' } })).toEqual([422, 'echo_delay_ms']);
    expect((await bad({ public: true }))[0]).toBe(403);
    expect((await apps('PATCH', '/v1/apps/demo-agent', owner.token, { name: 'mine now' })).status).toBe(403);
    // app_id and kind never change: sending them is a 422, not silently ignored; so is an unknown field.
    await apps('POST', '/v1/apps', owner.token, { app_id: 'fixed-kind', kind: 'agent', name: 'Fixed' });
    for (const field of [{ kind: 'chatbot' }, { app_id: 'renamed' }, { nmae: 'typo' }]) {
      const r = await apps('PATCH', '/v1/apps/fixed-kind', owner.token, field);
      expect([Object.keys(field)[0], r.status]).toEqual([Object.keys(field)[0], 422]);
    }
    expect((await apps('GET', '/v1/apps/fixed-kind', owner.token)).body).toMatchObject({ app_id: 'fixed-kind', kind: 'agent', name: 'Fixed' });
    expect((await apps('POST', '/v1/apps', undefined, { app_id: 'x2', kind: 'agent', name: 'x' })).status).toBe(401);
    const byAdmin = await apps('POST', '/v1/apps', t.adminToken, { app_id: 'shared-app', kind: 'aiapp', name: 'Shared', model: 'echo-1', public: true });
    expect(byAdmin.status).toBe(200);
    expect((await send(t, 'POST', '/v1/aiapp/shared-app/sync', { key: other.key, body: hello('shared') })).body.choices[0].message.content).toBe('Echo: shared');
  });

  describe('an app run outside Tollgate', () => {
    it('queues its tasks for the reporter, who moves them through the state machine with its token', async () => {
      if (!t) return;
      const app = await apps('POST', '/v1/apps', owner.token, { app_id: 'outside', kind: 'workflow', name: 'Outside', provider: 'external' });
      expect(app.body.reporter_token).toMatch(/^rt-[A-Za-z0-9]{40}$/);
      const reporter = { 'x-reporter-token': app.body.reporter_token };
      expect((await send(t, 'POST', '/v1/workflow/outside/sync', { key: owner.key, body: hello() })).status).toBe(409);

      const sub = await send(t, 'POST', '/v1/workflow/outside/async', { key: owner.key, body: hello('do it') });
      expect(sub.body.status).toBe('等待中');
      const n = sub.body.task_number;
      await new Promise((r) => setTimeout(r, 500));
      expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: owner.key })).body.status).toBe('等待中');

      const step = (body: Record<string, unknown>, headers: Record<string, string> = reporter) => send(t!, 'POST', '/v1/task-status/update', { body: { task_number: n, ...body }, headers });
      expect((await step({ status: '执行中' }, { 'x-reporter-token': 'rt-unknown' })).status).toBe(401);
      expect((await step({ status: '已完成' })).status).toBe(409);
      expect((await step({ status: '执行中', task_progress: { done: 0, total: 2 } })).body).toMatchObject({ status: '执行中', task_progress: { done: 0, total: 2 } });
      expect((await step({ status: '执行中', task_progress: { done: 1, total: 2 } })).body.task_progress).toEqual({ done: 1, total: 2 });
      expect((await step({ status: '已完成', task_result: { answer: 42 } })).status).toBe(200);
      expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: owner.key })).body).toMatchObject({ status: '已完成', task_result: { answer: 42 }, task_progress: { done: 1, total: 2 } });

      const rotated = await apps('POST', '/v1/apps/outside/reporter-token', owner.token);
      expect(rotated.body.reporter_token).not.toBe(app.body.reporter_token);
      const next = (await send(t, 'POST', '/v1/workflow/outside/async', { key: owner.key, body: hello() })).body.task_number;
      expect((await send(t, 'POST', '/v1/task-status/update', { body: { task_number: next, status: '执行中' }, headers: reporter })).status).toBe(401);
      const other = await apps('POST', '/v1/apps', owner.token, { app_id: 'outside-2', kind: 'workflow', name: 'Other outside', provider: 'external' });
      expect((await send(t, 'POST', '/v1/task-status/update', { body: { task_number: next, status: '执行中' }, headers: { 'x-reporter-token': other.body.reporter_token } })).status).toBe(404);
    });

    it('cancels a task that started while the cancel was under way: the cancel is decided again against 执行中, not refused as a conflict', async () => {
      if (!t) return;
      const app = await apps('POST', '/v1/apps', owner.token, { app_id: 'outside-4', kind: 'agent', name: 'Outside 4', provider: 'external' });
      const n = (await send(t, 'POST', '/v1/agent/outside-4/async', { key: owner.key, body: hello() })).body.task_number;
      // The reporter's start (as a worker's claim would be) holds the row while the owner's cancel reads 等待中 and waits for it.
      const starter = new Client({ connectionString: t.system.databaseUrls.tasks });
      await starter.connect();
      try {
        await starter.query('BEGIN');
        await starter.query("UPDATE tasks SET status = '执行中', started_at = now() WHERE task_number = $1", [n]);
        const cancel = send(t, 'POST', '/v1/task-status/update', { key: owner.key, body: { task_number: n, status: '已取消' } });
        for (;;) {
          const { rows } = await starter.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
          if (rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await starter.query('COMMIT');
        const c = await cancel;
        expect(c.status).toBe(200);
        expect(c.body).toMatchObject({ task_number: n, status: '已取消' });
      } finally {
        await starter.end();
      }
      expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: owner.key })).body.status).toBe('已取消');
      expect((await send(t, 'POST', '/v1/task-status/update', { body: { task_number: n, status: '已完成' }, headers: { 'x-reporter-token': app.body.reporter_token } })).status).toBe(409);
    });

    it('fails and refunds its unfinished tasks when the app is deleted; an app made later under the same id cannot report them', async () => {
      if (!t) return;
      const app = await apps('POST', '/v1/apps', owner.token, { app_id: 'outside-5', kind: 'agent', name: 'Outside 5', provider: 'external' });
      const waiting = (await send(t, 'POST', '/v1/agent/outside-5/async', { key: owner.key, body: hello() })).body.task_number;
      const running = (await send(t, 'POST', '/v1/agent/outside-5/async', { key: owner.key, body: hello() })).body.task_number;
      const started = await send(t, 'POST', '/v1/task-status/update', { body: { task_number: running, status: '执行中' }, headers: { 'x-reporter-token': app.body.reporter_token } });
      expect(started.body.status).toBe('执行中');

      expect((await apps('DELETE', '/v1/apps/outside-5', owner.token)).status).toBe(200);
      for (const n of [waiting, running]) {
        expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: owner.key })).body).toMatchObject({ status: '已报错', comments: 'app outside-5 no longer exists' });
        for (;;) {
          const rows = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE task_number = $1', [n]);
          if (rows[0]?.state === 'refunded') break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const again = await apps('POST', '/v1/apps', other.token, { app_id: 'outside-5', kind: 'agent', name: 'Not the first', provider: 'external' });
      expect(again.status).toBe(200);
      const takeOver = await send(t, 'POST', '/v1/task-status/update', { body: { task_number: waiting, status: '已完成', task_result: { by: 'someone else' } }, headers: { 'x-reporter-token': again.body.reporter_token } });
      expect(takeOver.status).toBe(409);
      expect((await send(t, 'GET', `/v1/task-query/${waiting}`, { key: owner.key })).body.status).toBe('已报错');
    });

    it('cancels a waiting task that never ran and refunds it', async () => {
      if (!t) return;
      await apps('POST', '/v1/apps', owner.token, { app_id: 'outside-3', kind: 'agent', name: 'Outside 3', provider: 'external' });
      const n = (await send(t, 'POST', '/v1/agent/outside-3/async', { key: owner.key, body: hello() })).body.task_number;
      const c = await send(t, 'POST', '/v1/task-status/update', { key: owner.key, body: { task_number: n, status: '已取消' } });
      expect(c.body).toMatchObject({ status: '已取消', started_at: null });
      for (;;) {
        const rows = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE task_number = $1', [n]);
        if (rows[0]?.state === 'refunded') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await waitForStatus(t, owner.key, n, ['已取消'])).status).toBe('已取消');
    });
  });
});
