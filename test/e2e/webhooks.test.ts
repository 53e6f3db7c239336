import { startTestSystem, type TestSystem } from '../support/system';
import { call, docsUser, eventually, expectEnvelope } from './docs-support';
import { TASKS_TEST_ENV, hello, newAccountWithKey, send, waitForStatus } from './tasks-support';
import { deliveries, endedDeliveryTo, hooks, received, startReceiver, subscribe, verifies, type Receiver } from './webhooks-support';

const ENV = {
  ...TASKS_TEST_ENV,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_DISABLE_AFTER_MS: '1000',
  WEBHOOK_CONCURRENCY: '6',
  WEBHOOK_ACCOUNT_CONCURRENCY: '3',
};

let docSeq = 0;
const newDoc = (title = 'Webhook doc', status = 'published') => ({ title: `${title} ${++docSeq}`, content: '# hello', category: 'guides', status });

// Webhooks end to end, development mode (loopback receivers allowed): real HTTP receivers on loopback.
describe('webhooks', () => {
  let t: TestSystem | null;
  let me: Awaited<ReturnType<typeof newAccountWithKey>>;
  let other: Awaited<ReturnType<typeof newAccountWithKey>>;
  let rcv: Receiver;
  let otherRcv: Receiver;

  beforeAll(async () => {
    t = await startTestSystem(ENV);
    if (!t) return;
    [me, other] = await Promise.all([newAccountWithKey(t), newAccountWithKey(t)]);
    [rcv, otherRcv] = await Promise.all([startReceiver(), startReceiver()]);
  });
  afterAll(async () => {
    await t?.stop();
    await rcv?.close();
    await otherRcv?.close();
  });
  beforeEach(() => {
    if (!t) return;
    rcv.answer = () => 200;
    otherRcv.answer = () => 200;
    rcv.bodyOf = otherRcv.bodyOf = (status) => (status < 300 ? 'ok' : `failure ${status}`);
  });

  const createDoc = async (token: string, doc = newDoc()) => {
    const r = await call(t!, 'POST', '/api/v1/documents', token, doc);
    expect(r.status).toBe(201);
    return r.body.data as { id: number };
  };

  it('creates a subscription with a whsec_ secret shown only then, and lists it without it', async () => {
    if (!t) return;
    const r = await hooks(t, 'POST', '', me.token, { url: `${rcv.url}/a`, events: ['document.created', 'task.completed'], description: 'first' });
    expectEnvelope(r, 201);
    expect(r.body.data).toMatchObject({ url: `${rcv.url}/a`, events: ['document.created', 'task.completed'], active: true, description: 'first', disabled_reason: null });
    expect(r.body.data.secret).toMatch(/^whsec_[A-Za-z0-9]{32,}$/);
    expect(typeof r.body.data.created_at).toBe('string');
    const got = await hooks(t, 'GET', `/${r.body.data.id}`, me.token);
    expectEnvelope(got, 200);
    expect(got.body.data.secret).toBeUndefined();
    const list = await hooks(t, 'GET', '', me.token);
    expect(list.body.data.webhooks.map((w: any) => w.id)).toContain(r.body.data.id);
    expect(JSON.stringify(list.body)).not.toContain(r.body.data.secret);
    expect((await hooks(t, 'DELETE', `/${r.body.data.id}`, me.token)).status).toBe(200);
    expect((await hooks(t, 'GET', `/${r.body.data.id}`, me.token)).status).toBe(404);
  });

  it('holds the per-account limit of 20 subscriptions under 30 concurrent creates', async () => {
    if (!t) return;
    const fresh = await newAccountWithKey(t);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => hooks(t!, 'POST', '', fresh.token, { url: `${rcv.url}/limit-${i}`, events: ['document.created'] })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of answers.filter((x) => x.status !== 201)) {
      expectEnvelope(r, 409);
      expect(r.body.message).toMatch(/at most 20 webhooks/);
    }
    expect((await hooks(t, 'GET', '', fresh.token)).body.data.webhooks).toHaveLength(20);
  });

  it('signs a document delivery with the secret; its data is the document exactly as the API returns it', async () => {
    if (!t) return;
    const sub = await subscribe(t, me.token, `${rcv.url}/signed`, ['document.created']);
    const doc = await createDoc(me.token);
    const r = await received(rcv, (x) => x.path === '/signed' && x.body.data?.id === doc.id, 'the document.created delivery');
    expect(r.body.type).toBe('document.created');
    expect(r.body.id).toMatch(/^evt_/);
    expect(r.headers['tollgate-event-id']).toBe(r.body.id);
    expect(r.headers['tollgate-event-type']).toBe('document.created');
    expect(new Date(r.body.created).toISOString()).toBe(r.body.created);
    expect(verifies(r, sub.secret)).toBe(true);
    expect(verifies(r, `${sub.secret}x`)).toBe(false);
    expect(verifies({ ...r, raw: r.raw.replace('document.created', 'document.updated') }, sub.secret)).toBe(false);
    const api = await call(t, 'GET', `/api/v1/documents/${doc.id}`, me.token);
    expect(r.body.data).toEqual(api.body.data);
    await hooks(t, 'DELETE', `/${sub.id}`, me.token);
  });

  it('retries a receiver that answers 500 twice: the same event id three times, every attempt listed', async () => {
    if (!t) return;
    const sub = await subscribe(t, me.token, `${rcv.url}/flaky`, ['document.created']);
    let seen = 0;
    rcv.answer = (x) => (x.path === '/flaky' && ++seen <= 2 ? 500 : 200);
    const doc = await createDoc(me.token);
    await eventually(async () => (rcv.got.filter((x) => x.path === '/flaky' && x.body.data?.id === doc.id).length >= 3 ? true : undefined), 'three attempts');
    const got = rcv.got.filter((x) => x.path === '/flaky');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((x) => x.body.id)).size).toBe(1);
    expect(new Set(got.map((x) => x.raw)).size).toBe(1);
    for (const x of got) expect(verifies(x, sub.secret)).toBe(true);
    const [d] = await eventually(async () => {
      const list = await deliveries(t!, me.token, sub.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'the delivery recorded as succeeded');
    expect(d).toMatchObject({ event_id: got[0].body.id, event: 'document.created', attempts: 3, next_retry_at: null, webhook_id: sub.id });
    expect(d.attempt_log.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
    expect(d.attempt_log[0].response_body).toBe('failure 500');
    for (const a of d.attempt_log) expect(Number.isInteger(a.latency_ms)).toBe(true);
    expect(d.payload).toEqual(got[0].body);

    // Redeliver: the same event (id and body) once more.
    const again = await hooks(t, 'POST', `/${sub.id}/deliveries/${d.id}/redeliver`, me.token);
    expectEnvelope(again, 202);
    await eventually(async () => (rcv.got.filter((x) => x.path === '/flaky').length >= 4 ? true : undefined), 'the redelivery');
    const fourth = rcv.got.filter((x) => x.path === '/flaky')[3];
    expect(fourth.body.id).toBe(got[0].body.id);
    expect(fourth.raw).toBe(got[0].raw);
    const after = await eventually(async () => {
      const [x] = await deliveries(t!, me.token, sub.id);
      return x.attempts === 4 && x.status === 'succeeded' ? x : undefined;
    }, 'the redelivery recorded');
    expect(after.attempt_log).toHaveLength(4);

    const metrics = await t.system.services.tasks.metrics.metrics();
    expect(metrics).toMatch(/tollgate_webhook_deliveries_total\{[^}]*outcome="succeeded"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/tollgate_webhook_attempts_total\{[^}]*outcome="http_error"[^}]*\} [1-9]/);
    expect(metrics).toContain('tollgate_webhook_delivery_duration_seconds_bucket');
    await hooks(t, 'DELETE', `/${sub.id}`, me.token);
  });

  it('delivers a task.completed with the task exactly as the task query returns it, only to its owner', async () => {
    if (!t) return;
    const mine = await subscribe(t, me.token, `${rcv.url}/tasks`, ['task.completed', 'task.failed']);
    const theirs = await subscribe(t, other.token, `${otherRcv.url}/tasks`, ['*']);
    const sub = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: hello('for my hook') });
    expect(sub.status).toBe(200);
    const taskNumber = sub.body.task_number;
    const r = await received(rcv, (x) => x.path === '/tasks' && x.body.data?.task_number === taskNumber, 'the task.completed delivery');
    expect(r.body.type).toBe('task.completed');
    expect(verifies(r, mine.secret)).toBe(true);
    const api = await waitForStatus(t, me.key, taskNumber, ['已完成']);
    expect(r.body.data).toEqual(api);

    // The other account's own task reaches it; mine never does.
    const theirTask = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: other.key, body: hello('theirs') });
    await received(otherRcv, (x) => x.body.data?.task_number === theirTask.body.task_number, "the other account's task");
    expect(otherRcv.got.some((x) => x.body.data?.task_number === taskNumber)).toBe(false);
    expect(rcv.got.some((x) => x.body.data?.task_number === theirTask.body.task_number)).toBe(false);
    await hooks(t, 'DELETE', `/${mine.id}`, me.token);
    await hooks(t, 'DELETE', `/${theirs.id}`, other.token);
  });

  it('delivers document events only to subscribers who may read the document', async () => {
    if (!t) return;
    const noRead = await docsUser(t, { docs_read: false, docs_write: false });
    const reader = await subscribe(t, other.token, `${otherRcv.url}/docs`, ['document.created', 'document.updated', 'document.deleted', 'document.restored']);
    const blind = await subscribe(t, noRead.token, `${otherRcv.url}/blind`, ['*']);
    const draft = await createDoc(me.token, newDoc('Private draft', 'draft'));
    const published = await createDoc(me.token, newDoc('Public page'));
    await received(otherRcv, (x) => x.path === '/docs' && x.body.data?.id === published.id, 'the published document');
    // Trash and restore: document.deleted then document.restored.
    expect((await call(t, 'DELETE', `/api/v1/documents/${published.id}`, me.token)).status).toBe(200);
    expect((await call(t, 'POST', `/api/v1/documents/${published.id}/restore`, me.token)).status).toBe(200);
    const restored = await received(otherRcv, (x) => x.path === '/docs' && x.body.type === 'document.restored', 'the restore');
    expect(restored.body.data).toMatchObject({ id: published.id, deleted_at: null });
    expect(otherRcv.got.some((x) => x.path === '/docs' && x.body.type === 'document.deleted' && x.body.data.id === published.id)).toBe(true);
    // The author's draft is theirs alone; an account without docs_read gets no documents at all.
    const own = await createDoc(other.token, newDoc('Their own draft', 'draft'));
    await received(otherRcv, (x) => x.path === '/docs' && x.body.data?.id === own.id, 'their own draft');
    expect(otherRcv.got.some((x) => x.body.data?.id === draft.id)).toBe(false);
    expect(otherRcv.got.some((x) => x.path === '/blind')).toBe(false);
    await hooks(t, 'DELETE', `/${reader.id}`, other.token);
    await hooks(t, 'DELETE', `/${blind.id}`, noRead.token);
  });

  it('delivers a per-submission webhook, signed with the account default secret', async () => {
    if (!t) return;
    const secret = await hooks(t, 'GET', '/default-secret', me.token);
    expectEnvelope(secret, 200);
    expect(secret.body.data.secret).toMatch(/^whsec_[A-Za-z0-9]{32,}$/);
    expect((await hooks(t, 'GET', '/default-secret', me.token)).body.data.secret).toBe(secret.body.data.secret);
    const sub = await send(t, 'POST', '/v1/workflow/demo-workflow/async', { key: me.key, body: { ...hello('call me back'), webhook: `${rcv.url}/once?x=1` } });
    expect(sub.status).toBe(200);
    const r = await received(rcv, (x) => x.path === '/once?x=1', 'the per-submission delivery');
    expect(r.body.type).toBe('task.completed');
    expect(r.body.data.task_number).toBe(sub.body.task_number);
    expect(verifies(r, secret.body.data.secret)).toBe(true);
    expect(r.body.data).toEqual(await waitForStatus(t, me.key, sub.body.task_number, ['已完成']));

    for (const webhook of ['ftp://example.com/x', 'not a url', 42, `http://example.com/${'a'.repeat(2100)}`]) {
      const bad = await send(t, 'POST', '/v1/workflow/demo-workflow/async', { key: me.key, body: { ...hello('x'), webhook } });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'webhook']);
    }
  });

  it('keeps a slow receiver from delaying another subscription', async () => {
    if (!t) return;
    const slow = await startReceiver();
    try {
      slow.hold = true;
      const a = await subscribe(t, me.token, `${slow.url}/slow`, ['document.created']);
      const b = await subscribe(t, me.token, `${rcv.url}/fast`, ['document.created']);
      const doc = await createDoc(me.token);
      await received(slow, (x) => x.body.data?.id === doc.id, 'the slow receiver to be called');
      await received(rcv, (x) => x.path === '/fast' && x.body.data?.id === doc.id, 'the fast receiver while the slow one holds');
      expect(slow.hold).toBe(true);
      slow.release();
      await hooks(t, 'DELETE', `/${a.id}`, me.token);
      await hooks(t, 'DELETE', `/${b.id}`, me.token);
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it("keeps one account's slow receivers from holding every slot of the replica", async () => {
    if (!t) return;
    const noisy = await newAccountWithKey(t);
    const slow = await startReceiver();
    try {
      slow.hold = true;
      const subs = [];
      for (let i = 0; i < 6; i++) subs.push(await subscribe(t, noisy.token, `${slow.url}/noisy${i}`, ['document.created']));
      const doc = await createDoc(noisy.token);
      const mine = () => slow.got.filter((x) => x.body.data?.id === doc.id).length;
      await eventually(async () => (mine() >= 3 ? true : undefined), "three of the noisy account's deliveries in flight");
      const ping = await subscribe(t, other.token, `${otherRcv.url}/while-noisy`, ['ping']);
      expectEnvelope(await hooks(t, 'POST', `/${ping.id}/test`, other.token), 202);
      await received(otherRcv, (x) => x.path === '/while-noisy', "another account's ping while the noisy one's receivers hold");
      // WEBHOOK_ACCOUNT_CONCURRENCY (3) of the 6 slots, not all of them.
      expect(mine()).toBe(3);
      expect(slow.hold).toBe(true);
      slow.release();
      await eventually(async () => (mine() === 6 ? true : undefined), 'the rest of the noisy deliveries once the receiver answers');
      for (const sub of [...subs, ping]) await hooks(t, 'DELETE', `/${sub.id}`, sub === ping ? other.token : noisy.token);
    } finally {
      slow.release();
      await slow.close();
    }
  });

  it('records an answer with NUL characters in it (kept as U+FFFD) instead of sending the delivery again and again', async () => {
    if (!t) return;
    const sub = await subscribe(t, me.token, `${rcv.url}/nul`, ['document.created']);
    rcv.bodyOf = (status) => `ok\u0000${status}\u0000`;
    const doc = await createDoc(me.token);
    const [d] = await eventually(async () => {
      const list = await deliveries(t!, me.token, sub.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'the delivery recorded as succeeded');
    expect(d.attempts).toBe(1);
    expect(d.attempt_log[0].response_body).toBe('ok\uFFFD200\uFFFD');
    expect(rcv.got.filter((x) => x.path === '/nul' && x.body.data?.id === doc.id)).toHaveLength(1);
    await hooks(t, 'DELETE', `/${sub.id}`, me.token);
  });

  it('sends ping on test, and signs with both secrets while a rotation overlaps', async () => {
    if (!t) return;
    const sub = await subscribe(t, me.token, `${rcv.url}/ping`, ['task.failed']);
    const test = await hooks(t, 'POST', `/${sub.id}/test`, me.token);
    expectEnvelope(test, 202);
    expect(test.body.data).toMatchObject({ event: 'ping', status: 'pending', webhook_id: sub.id });
    const ping = await received(rcv, (x) => x.path === '/ping' && x.body.id === test.body.data.event_id, 'the ping');
    expect(ping.body).toMatchObject({ type: 'ping', data: { webhook_id: sub.id } });
    expect(verifies(ping, sub.secret)).toBe(true);

    const rotated = await hooks(t, 'POST', `/${sub.id}/rotate-secret`, me.token);
    expectEnvelope(rotated, 200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(sub.secret);
    const test2 = await hooks(t, 'POST', `/${sub.id}/test`, me.token);
    const ping2 = await received(rcv, (x) => x.body.id === test2.body.data.event_id, 'the ping after rotation');
    expect(String(ping2.headers['tollgate-signature']).match(/v1=/g)).toHaveLength(2);
    expect(verifies(ping2, rotated.body.data.secret)).toBe(true);
    expect(verifies(ping2, sub.secret)).toBe(true);
    await hooks(t, 'DELETE', `/${sub.id}`, me.token);
  });

  it('disables a subscription whose deliveries keep failing, says why, and re-enables it', async () => {
    if (!t) return;
    const sub = await subscribe(t, me.token, `${rcv.url}/down`, ['document.created']);
    rcv.answer = (x) => (x.path === '/down' ? 503 : 200);
    const disabled = await eventually(
      async () => {
        const w = await hooks(t!, 'GET', `/${sub.id}`, me.token);
        if (!w.body.data.active) return w.body.data;
        await createDoc(me.token);
        await new Promise((r) => setTimeout(r, 200));
        return undefined;
      },
      'the subscription to be disabled',
      30_000,
    );
    expect(disabled.disabled_reason).toMatch(/failing deliveries since .*HTTP 503/);
    expect(disabled.failing_since).not.toBeNull();
    expect((await hooks(t, 'POST', `/${sub.id}/test`, me.token)).status).toBe(409);

    rcv.answer = () => 200;
    const enabled = await hooks(t, 'PUT', `/${sub.id}`, me.token, { active: true });
    expectEnvelope(enabled, 200);
    expect(enabled.body.data).toMatchObject({ active: true, disabled_reason: null, failing_since: null });
    const doc = await createDoc(me.token);
    await received(rcv, (x) => x.path === '/down' && x.body.data?.id === doc.id && true, 'a delivery after re-enabling');
    await hooks(t, 'DELETE', `/${sub.id}`, me.token);
  });

  it('refuses a metadata address even in development mode', async () => {
    if (!t) return;
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/']) {
      const r = await hooks(t, 'POST', '', me.token, { url, events: ['*'] });
      expectEnvelope(r, 422);
      expect(r.body.message).toMatch(/metadata/);
    }
    // And when a per-submission webhook is submitted (the delivery checks the resolved address again).
    for (const webhook of ['http://169.254.169.254/latest/meta-data', 'http://[::ffff:a9fe:a9fe]/', 'http://metadata.google.internal./']) {
      const sub = await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: { ...hello('metadata'), webhook } });
      expect(sub.status).toBe(422);
      expect(sub.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'webhook'], msg: expect.stringMatching(/metadata/) })]);
    }
    // A loopback receiver is fine in development mode.
    expect((await send(t, 'POST', '/v1/agent/demo-agent/async', { key: me.key, body: { ...hello('dev'), webhook: `${rcv.url}/dev` } })).status).toBe(200);
  });

  it('answers 422 for unknown events and bad input, 404 for another account, and shows an admin everything', async () => {
    if (!t) return;
    const unknown = await hooks(t, 'POST', '', me.token, { url: `${rcv.url}/x`, events: ['document.created', 'task.exploded'] });
    expectEnvelope(unknown, 422);
    expect(unknown.body.message).toContain('task.exploded');
    for (const body of [
      { url: 'ftp://example.com/', events: ['*'] },
      { url: 'http://127.0.0.1:0/x', events: ['*'] },
      { url: `${rcv.url}/x`, events: [] },
      { url: `${rcv.url}/x`, events: 'task.completed' },
      { url: `${rcv.url}/x`, events: ['*'], description: 'x'.repeat(501) },
      { url: `${rcv.url}/x`, events: ['*'], extra: true },
      { events: ['*'] },
      '{"url": ',
    ]) {
      expect((await hooks(t, 'POST', '', me.token, body)).status).toBe(422);
    }
    expect((await hooks(t, 'POST', '', undefined, { url: `${rcv.url}/x`, events: ['*'] })).status).toBe(401);

    const changes: any[] = [];
    const watching = await t.system.bus.watch('webhooks.changed.>', (m) => changes.push(m.data));
    const mine = await subscribe(t, me.token, `${rcv.url}/mine`, ['ping']);
    expect((await hooks(t, 'PUT', `/${mine.id}`, me.token, { events: ['nope'] })).status).toBe(422);
    expect((await hooks(t, 'PUT', `/${mine.id}`, me.token, {})).status).toBe(422);
    for (const [method, path] of [
      ['GET', `/${mine.id}`],
      ['PUT', `/${mine.id}`],
      ['DELETE', `/${mine.id}`],
      ['POST', `/${mine.id}/rotate-secret`],
      ['POST', `/${mine.id}/test`],
      ['GET', `/${mine.id}/deliveries`],
      ['POST', `/${mine.id}/deliveries/dlv_nothing/redeliver`],
      ['GET', '/wh_unknown'],
    ] as const) {
      const r = await hooks(t, method, path, other.token, method === 'PUT' ? { description: 'mine now' } : undefined);
      expectEnvelope(r, 404);
    }
    expect((await hooks(t, 'POST', `/${mine.id}/deliveries/dlv_nothing/redeliver`, me.token)).status).toBe(404);
    expect((await hooks(t, 'GET', '', other.token)).body.data.webhooks.map((w: any) => w.id)).not.toContain(mine.id);
    const adminList = await hooks(t, 'GET', '', t.adminToken);
    expect(adminList.body.data.webhooks.map((w: any) => w.id)).toContain(mine.id);
    expect((await hooks(t, 'GET', `/${mine.id}`, t.adminToken)).status).toBe(200);
    const changed = await hooks(t, 'PUT', `/${mine.id}`, me.token, { description: 'renamed', events: ['*'] });
    expect(changed.body.data).toMatchObject({ description: 'renamed', events: ['*'] });
    await hooks(t, 'DELETE', `/${mine.id}`, me.token);
    // Every change is announced for activity tracking; refused attempts announce nothing.
    await eventually(async () => (changes.filter((c) => c.id === mine.id).length >= 3 ? true : undefined), 'webhooks.changed events');
    expect(changes.filter((c) => c.id === mine.id).map((c) => c.change)).toEqual(['created', 'updated', 'deleted']);
    await watching.stop();
  });

  it('describes the webhook routes and the per-submission field in the OpenAPI document', async () => {
    if (!t) return;
    const doc = (await (await fetch(`${t.http}/openapi.json`)).json()) as { paths: Record<string, any> };
    for (const path of ['/api/v1/webhooks', '/api/v1/webhooks/{id}', '/api/v1/webhooks/{id}/rotate-secret', '/api/v1/webhooks/{id}/test', '/api/v1/webhooks/{id}/deliveries', '/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', '/api/v1/webhooks/default-secret']) {
      expect(doc.paths[path]).toBeDefined();
    }
    const body = doc.paths['/v1/agent/{app_id}/async'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(body)).toContain('webhook');
  });
});
