import { startTestSystem, type TestSystem } from '../support/system';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { createApp, locs } from './kinds-support';
import { TASKS_TEST_ENV, newAccountWithKey, openStream, readSse, send, waitForStatus } from './tasks-support';

const turn = (content: string, conversation_id?: string) => ({ messages: [{ role: 'user', content }], ...(conversation_id && { call_params: { conversation_id } }) });

// The chatbot kind: history kept server-side per conversation, its window, and whose it is.
describe('chatbot kind', () => {
  let t: TestSystem | null;
  let fake: FakeOpenAi;
  let alice: Awaited<ReturnType<typeof newAccountWithKey>>;
  let bob: Awaited<ReturnType<typeof newAccountWithKey>>;

  beforeAll(async () => {
    t = await startTestSystem(TASKS_TEST_ENV);
    if (!t) return;
    fake = await startFakeOpenAi();
    [alice, bob] = await Promise.all([newAccountWithKey(t), newAccountWithKey(t)]);
    const upstream = { provider: 'openai-compatible', model: 'fake-model', base_url: fake.baseUrl };
    await createApp(t, alice.token, { app_id: 'cb-up', kind: 'chatbot', system_prompt: 'Be kind.', ...upstream });
    await createApp(t, alice.token, { app_id: 'cb-window', kind: 'chatbot', ...upstream, settings: { history_window: 2 } });
    await createApp(t, alice.token, { app_id: 'cb-other', kind: 'chatbot' });
  });
  afterAll(async () => {
    await fake?.close();
    await t?.stop();
  });

  const lastMessages = () => fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  const ask = (key: string, app: string, body: unknown) => send(t!, 'POST', `/v1/chatbot/${app}/sync`, { key, body });

  it('starts a conversation when none is named, returns its id, and gives the model the earlier turns next time', async () => {
    if (!t) return;
    const first = await ask(alice.key, 'cb-up', turn('my name is Ann'));
    expect(first.status).toBe(200);
    const id = first.body.conversation_id;
    expect(id).toMatch(/^conv_[0-9a-f]{24}$/);
    const second = await ask(alice.key, 'cb-up', turn('what is my name?', id));
    expect(second.status).toBe(200);
    expect(second.body.conversation_id).toBe(id);
    expect(lastMessages()).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'my name is Ann' },
      { role: 'assistant', content: 'Fake reply to: my name is Ann' },
      { role: 'user', content: 'what is my name?' },
    ]);
    const task = await send(t, 'GET', `/v1/task-query/${second.body.task_number}`, { key: alice.key });
    expect(task.body.task_result.conversation_id).toBe(id);

    const fresh = await ask(alice.key, 'cb-up', turn('hello again'));
    expect(fresh.body.conversation_id).not.toBe(id);
    expect(lastMessages()).toHaveLength(2);
  });

  it('keeps history on the echo provider too (the demo chatbot): the prompt grows with the stored turns', async () => {
    if (!t) return;
    const first = await ask(alice.key, 'demo-chatbot', turn('one two'));
    expect(first.body.usage.prompt_tokens).toBe(6 + 2);
    const second = await ask(alice.key, 'demo-chatbot', turn('three', first.body.conversation_id));
    expect(second.body.choices[0].message.content).toBe('Echo: three');
    expect(second.body.usage.prompt_tokens).toBe(6 + 2 + 3 + 1);
  });

  it('sends the model only the last history_window stored turns', async () => {
    if (!t) return;
    const a = await ask(alice.key, 'cb-window', turn('first'));
    const id = a.body.conversation_id;
    await ask(alice.key, 'cb-window', turn('second', id));
    await ask(alice.key, 'cb-window', turn('third', id));
    expect(lastMessages()).toEqual([
      { role: 'user', content: 'second' },
      { role: 'assistant', content: 'Fake reply to: second' },
      { role: 'user', content: 'third' },
    ]);
  });

  it("answers another account's conversation id, an unknown one and one of another app with the same 404, before any task", async () => {
    if (!t) return;
    const mine = await ask(alice.key, 'demo-chatbot', turn('secret plans'));
    const id = mine.body.conversation_id;
    const stolen = await ask(bob.key, 'demo-chatbot', turn('what were the plans?', id));
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({ detail: `conversation ${id} not found` });
    expect(stolen.text).not.toContain('secret');
    expect((await send(t, 'POST', '/v1/chatbot/demo-chatbot/async', { key: bob.key, body: turn('x', id) })).status).toBe(404);
    expect((await ask(alice.key, 'demo-chatbot', turn('x', 'conv_nope'))).body).toEqual({ detail: 'conversation conv_nope not found' });
    expect((await ask(alice.key, 'cb-other', turn('x', id))).body).toEqual({ detail: `conversation ${id} not found` });
    const listed = await send(t, 'POST', '/v1/task-query/list', { key: bob.key, body: {} });
    expect(listed.body.total).toBe(0);
    expect((await ask(alice.key, 'demo-chatbot', turn('still mine', id))).status).toBe(200);
  });

  it('returns the conversation id on the async submission and in task_result', async () => {
    if (!t) return;
    const sub = await send(t, 'POST', '/v1/chatbot/cb-up/async', { key: alice.key, body: turn('queued hello') });
    expect(sub.status).toBe(200);
    const id = sub.body.conversation_id;
    expect(id).toMatch(/^conv_/);
    const done = await waitForStatus(t, alice.key, sub.body.task_number, ['已完成', '已报错']);
    expect(done.task_result.conversation_id).toBe(id);
    await ask(alice.key, 'cb-up', turn('and now?', id));
    expect(lastMessages().slice(1, 3)).toEqual([
      { role: 'user', content: 'queued hello' },
      { role: 'assistant', content: 'Fake reply to: queued hello' },
    ]);
  });

  it('puts the conversation id on the first chunk of a stream', async () => {
    if (!t) return;
    const sse = await readSse(await openStream(t, '/v1/chatbot/demo-chatbot/sync', alice.key, { ...turn('streamed'), stream: true }));
    expect(sse.done).toBe(true);
    expect(sse.json[0].conversation_id).toMatch(/^conv_/);
    const next = await ask(alice.key, 'demo-chatbot', turn('again', sse.json[0].conversation_id));
    expect(next.status).toBe(200);
  });

  it('does not store the turn of a failed run', async () => {
    if (!t) return;
    const first = await ask(alice.key, 'demo-chatbot', turn('a'));
    const id = first.body.conversation_id;
    const failed = await ask(alice.key, 'demo-chatbot', { ...turn('b c d e f', id), call_params: { conversation_id: id, echo_error: 'down' } });
    expect(failed.status).toBe(503);
    const after = await ask(alice.key, 'demo-chatbot', turn('g', id));
    expect(after.body.usage.prompt_tokens).toBe(6 + 1 + 2 + 1);
  });

  it('refuses a conversation_id that is not a string with 422', async () => {
    if (!t) return;
    const r = await ask(alice.key, 'demo-chatbot', { ...turn('x'), call_params: { conversation_id: 5 } });
    expect(r.status).toBe(422);
    expect(locs(r.body)).toEqual(['body.call_params.conversation_id']);
  });
});
