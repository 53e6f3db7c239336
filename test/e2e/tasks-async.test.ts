import { startTestSystem, type TestSystem } from '../support/system';
import { billingSql } from './billing-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

const slow = (words = 8, delay = 150) => ({ messages: [{ role: 'user', content: Array.from({ length: words }, (_, i) => `w${i}`).join(' ') }], call_params: { echo_delay_ms: delay } });

async function admissionState(t: TestSystem, taskNumber: string, want: string): Promise<string> {
  for (;;) {
    const rows = await billingSql<{ state: string }>(t, 'SELECT state FROM admissions WHERE task_number = $1', [taskNumber]);
    if (rows[0]?.state === want) return want;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Async execution, the state machine, queries, ownership and idempotency, through the gateway.
describe('async tasks', () => {
  let t: TestSystem | null;
  let me: Awaited<ReturnType<typeof newAccountWithKey>>;
  let other: Awaited<ReturnType<typeof newAccountWithKey>>;
  let adminKey: string;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    [me, other] = await Promise.all([newAccountWithKey(t), newAccountWithKey(t)]);
    const form = new URLSearchParams({ token: t.adminToken, name: 'admin key' });
    const created = (await (await fetch(`${t.http}/apikeys/create`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })).json()) as { data: { key: string } };
    adminKey = created.data.key;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const submit = (body: unknown, key = me.key, kind = 'agent', headers: Record<string, string> = {}) => send(t!, 'POST', `/v1/${kind}/demo-${kind}/async`, { key, body, headers });
  const update = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) => send(t!, 'POST', '/v1/task-status/update', { key, body, headers });

  it('answers the submission and completes, charging the execution', async () => {
    if (!t) return;
    const r = await submit(hello('async hello'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ detail: expect.any(String), task_number: expect.stringMatching(/^T\d{14}[0-9a-f]{10}$/), status: '等待中', estimated_time: expect.stringMatching(/^about \d+(\.\d)? (second|seconds|minutes)$/) });
    const done = await waitForStatus(t, me.key, r.body.task_number, ['已完成', '已报错']);
    expect(done).toMatchObject({ status: '已完成', comments: '', kind: 'agent', mode: 'async', task_result: { object: 'chat.completion', choices: [{ message: { content: 'Echo: async hello' } }] } });
    expect(await admissionState(t, r.body.task_number, 'charged')).toBe('charged');
  });

  it('ends 已报错 with comments when the provider fails, and refunds', async () => {
    if (!t) return;
    const r = await submit({ ...hello(), call_params: { echo_error: 'model overloaded' } }, me.key, 'workflow');
    const done = await waitForStatus(t, me.key, r.body.task_number, ['已完成', '已报错']);
    expect(done).toMatchObject({ status: '已报错', comments: 'workflow step answer (model) failed: echo provider failed as asked: model overloaded', task_result: null });
    expect(await admissionState(t, r.body.task_number, 'refunded')).toBe('refunded');
  });

  it('cancels a running task: its work stops, it stays 已取消, and the reservation is refunded', async () => {
    if (!t) return;
    const r = await submit(slow(20, 150), me.key, 'chatbot');
    await waitForStatus(t, me.key, r.body.task_number, ['执行中']);
    const c = await update(me.key, { task_number: r.body.task_number, status: '已取消' });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ status: '已取消', comments: 'cancelled by the owner' });
    expect(await admissionState(t, r.body.task_number, 'refunded')).toBe('refunded');
    // 20 chunks × 150 ms: had the work gone on, it would have tried to finish within 3 s.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const later = await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key: me.key });
    expect(later.body).toMatchObject({ status: '已取消', task_result: null });
  });

  it('streams its state changes as SSE until the final state', async () => {
    if (!t) return;
    const running = await submit(slow(6, 100), me.key, 'aiapp');
    const res = await openStream(t, `/v1/task-query/${running.body.task_number}/events`, me.key);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const sse = await readSse(res);
    expect(sse.events.every((e) => e.event === 'status')).toBe(true);
    const statuses = sse.json.map((e) => e.status);
    expect(['等待中', '执行中']).toContain(statuses[0]);
    expect(statuses.at(-1)).toBe('已完成');
    expect(statuses.filter((s) => s === '已完成')).toHaveLength(1);
    expect(sse.json.at(-1).task_result.choices[0].message.content).toBe('Echo: w0 w1 w2 w3 w4 w5');

    const finished = await readSse(await openStream(t, `/v1/task-query/${running.body.task_number}/events`, me.key));
    expect(finished.json).toHaveLength(1);
    expect(finished.json[0].status).toBe('已完成');
  });

  it('refuses illegal transitions with 409 naming both states, before checking permission', async () => {
    if (!t) return;
    const r = await submit(hello());
    await waitForStatus(t, me.key, r.body.task_number, ['已完成']);
    const back = await update(me.key, { task_number: r.body.task_number, status: '执行中' });
    expect(back.status).toBe(409);
    expect(back.body.detail).toContain('已完成');
    expect(back.body.detail).toContain('执行中');
    const cancelDone = await update(me.key, { task_number: r.body.task_number, status: '已取消' });
    expect(cancelDone.status).toBe(409);
    expect((await update(me.key, { task_number: r.body.task_number, status: 'done' })).body.detail[0].loc).toEqual(['body', 'status']);
  });

  it("lets an owner's key only cancel, and admin credentials make the other changes", async () => {
    if (!t) return;
    const r = await submit(slow(30, 200), me.key, 'workflow');
    await waitForStatus(t, me.key, r.body.task_number, ['执行中']);
    const forbidden = await update(me.key, { task_number: r.body.task_number, status: '已完成', task_result: { forged: true } });
    expect(forbidden.status).toBe(403);
    const byAdmin = await update(adminKey, { task_number: r.body.task_number, status: '已报错', comments: 'stopped by the operator' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ status: '已报错', comments: 'stopped by the operator' });
    expect((await send(t, 'GET', `/v1/task-query/${r.body.task_number}`, { key: me.key })).body.status).toBe('已报错');
  });

  it("hides other accounts' tasks behind the same 404 as unknown ones", async () => {
    if (!t) return;
    const mine = await submit(hello());
    const n = mine.body.task_number;
    const unknown = await send(t, 'GET', '/v1/task-query/T20990101000000deadbeef00', { key: other.key });
    const foreign = await send(t, 'GET', `/v1/task-query/${n}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.detail.replace(n, 'X')).toBe(unknown.body.detail.replace('T20990101000000deadbeef00', 'X'));
    expect((await update(other.key, { task_number: n, status: '已取消' })).status).toBe(404);
    expect((await send(t, 'GET', `/v1/task-query/${n}/events`, { key: other.key })).status).toBe(404);
    const batch = await send(t, 'POST', '/v1/task-query/batch', { key: other.key, body: { task_numbers: [n] } });
    expect(batch.body).toEqual({ items: [], not_found: [n] });
    const list = await send(t, 'POST', '/v1/task-query/list', { key: other.key, body: {} });
    expect(list.body.items.some((x: { task_number: string }) => x.task_number === n)).toBe(false);
    expect((await send(t, 'GET', `/v1/task-query/${n}`, { key: adminKey })).status).toBe(200);
  });

  it('queries in batches and lists with filters and pages', async () => {
    if (!t) return;
    const acct = await newAccountWithKey(t);
    const subs = [];
    for (const kind of ['agent', 'agent', 'chatbot']) subs.push((await submit(hello(kind), acct.key, kind)).body.task_number);
    const failed = (await submit({ ...hello(), call_params: { echo_error: 'x' } }, acct.key, 'chatbot')).body.task_number;
    for (const n of [...subs, failed]) await waitForStatus(t, acct.key, n, ['已完成', '已报错']);

    const batch = await send(t, 'POST', '/v1/task-query/batch', { key: acct.key, body: { task_numbers: [subs[2], 'T20990101000000deadbeef00', subs[0]] } });
    expect(batch.body.items.map((x: { task_number: string }) => x.task_number)).toEqual([subs[2], subs[0]]);
    expect(batch.body.not_found).toEqual(['T20990101000000deadbeef00']);
    const tooMany = await send(t, 'POST', '/v1/task-query/batch', { key: acct.key, body: { task_numbers: Array.from({ length: 101 }, (_, i) => `T${i}`) } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'task_numbers']);

    const all = await send(t, 'POST', '/v1/task-query/list', { key: acct.key, body: {} });
    expect(all.body).toMatchObject({ page: 1, page_size: 20, total: 4 });
    expect(all.body.items.map((x: { task_number: string }) => x.task_number)).toEqual([failed, subs[2], subs[1], subs[0]]);
    const chatbots = await send(t, 'POST', '/v1/task-query/list', { key: acct.key, body: { kind: 'chatbot', status: '已完成' } });
    expect(chatbots.body.items.map((x: { task_number: string }) => x.task_number)).toEqual([subs[2]]);
    const page2 = await send(t, 'POST', '/v1/task-query/list', { key: acct.key, body: { page: 2, page_size: 3 } });
    expect(page2.body).toMatchObject({ page: 2, page_size: 3, total: 4, items: [{ task_number: subs[0] }] });
    const future = await send(t, 'POST', '/v1/task-query/list', { key: acct.key, body: { created_from: new Date(Date.now() + 60_000).toISOString(), app_id: 'demo-agent', status: ['已完成', '已报错'] } });
    expect(future.body).toMatchObject({ total: 0, items: [] });
    const bad = await send(t, 'POST', '/v1/task-query/list', { key: acct.key, body: { page_size: 1000, status: 'finished', created_from: 'yesterday' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual(['created_from', 'page_size', 'status']);
  });

  it('applies batch updates one by one, reporting each outcome', async () => {
    if (!t) return;
    const a = await submit(slow(30, 200));
    const b = await submit(hello());
    await waitForStatus(t, me.key, b.body.task_number, ['已完成']);
    const r = await send(t, 'POST', '/v1/task-status/batch-update', {
      key: me.key,
      body: { updates: [{ task_number: a.body.task_number, status: '已取消' }, { task_number: b.body.task_number, status: '已取消' }, { task_number: 'T20990101000000deadbeef00', status: '已取消' }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { ok: boolean; status_code: number }) => [x.ok, x.status_code])).toEqual([
      [true, 200],
      [false, 409],
      [false, 404],
    ]);
    expect(r.body.results[0].task.status).toBe('已取消');
    expect(r.body.results[1].detail).toContain('已完成 → 已取消');
  });

  describe('Idempotency-Key', () => {
    it('answers the same task for the same key and body, and 409 for another body', async () => {
      if (!t) return;
      const headers = { 'idempotency-key': `order-${Date.now()}` };
      const first = await submit(hello('once'), me.key, 'agent', headers);
      const again = await submit(hello('once'), me.key, 'agent', headers);
      expect(again.status).toBe(200);
      expect(again.body.task_number).toBe(first.body.task_number);
      const changed = await submit(hello('twice'), me.key, 'agent', headers);
      expect(changed.status).toBe(409);
      const list = await send(t, 'POST', '/v1/task-query/list', { key: me.key, body: { page_size: 100 } });
      expect(list.body.items.filter((x: { task_number: string }) => x.task_number === first.body.task_number)).toHaveLength(1);
      const otherAccount = await submit(hello('once'), other.key, 'agent', headers);
      expect(otherAccount.body.task_number).not.toBe(first.body.task_number);
    });

    it('replays a sync answer without running or charging it again', async () => {
      if (!t) return;
      const headers = { 'idempotency-key': `sync-${Date.now()}` };
      const path = '/v1/agent/demo-agent/sync';
      const first = await send(t, 'POST', path, { key: me.key, body: hello('pay once'), headers });
      const again = await send(t, 'POST', path, { key: me.key, body: hello('pay once'), headers });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect((await send(t, 'POST', path, { key: me.key, body: { ...hello('pay once'), temperature: 1 }, headers })).status).toBe(409);
      const charges = await billingSql<{ n: string }>(t, "SELECT count(*) AS n FROM ledger_entries WHERE account_id = $1 AND type = 'charge' AND task_number = $2", [me.accountId, first.body.task_number]);
      expect(Number(charges[0].n)).toBe(1);

      const streamHeaders = { 'idempotency-key': `stream-${Date.now()}` };
      const streamed = await readSse(await openStream(t, path, me.key, { ...hello('a b c'), stream: true }, undefined, streamHeaders));
      const replayed = await readSse(await openStream(t, path, me.key, { ...hello('a b c'), stream: true }, undefined, streamHeaders));
      const text = (r: typeof streamed) => r.json.map((c) => c.choices[0].delta.content ?? '').join('');
      expect(replayed.done).toBe(true);
      expect(text(replayed)).toBe(text(streamed));
      expect(replayed.headers.get('x-task-number')).toBe(streamed.headers.get('x-task-number'));
    });
  });
});
