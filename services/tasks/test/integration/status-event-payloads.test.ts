import { TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { statusEvent } from '../../src/domain/events';
import type { TaskRequest } from '../../src/domain/types';
import type { TaskRepo } from '../../src/repo/task-repo';
import { taskRepoHarness, type TaskRepoHarness } from '../support/task-repo';

// The status events a claim and a transition write are built by their statements, in SQL; a task
// written from code gets its event from statusEvent(). Subscribers (billing's settlement, the
// webhook fan-out) must see the same payload either way.
describe('status events written by the queue statements', () => {
  const database = useTestDatabase('tasks');
  let h: TaskRepoHarness;
  let repo: TaskRepo;

  beforeAll(async () => {
    if (!database.available) return;
    h = await taskRepoHarness(database.url);
    repo = h.repo;
  });
  afterAll(async () => {
    await h?.close();
  });

  const requestOf = (webhook?: string): TaskRequest => ({ messages: [{ role: 'user', content: 'hello' }], call_params: {}, stream: false, ...(webhook && { webhook }) });

  async function runToCompletion(taskNumber: string, webhook?: string) {
    await repo.create({ taskNumber, appId: 'demo-agent', kind: 'agent', accountId: 7, apiKeyId: 9, mode: 'async', request: requestOf(webhook), idempotencyKey: null, requestHash: null });
    const claimed = (await repo.claim('worker-a', 30_000, 1))[0];
    expect(claimed?.taskNumber).toBe(taskNumber);
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    const done = await repo.transition(taskNumber, [TaskStatus.Running], TaskStatus.Completed, { result: { content: 'hi' }, usage }, 'worker-a');
    expect(done).not.toBeNull();
    await new Promise((r) => setImmediate(r));
    return { claimed: claimed!, done: done! };
  }

  const eventsOf = (taskNumber: string) => h.events.filter((e) => e.task_number === taskNumber);

  it('says webhook: false on the final event of a submission without one, as statusEvent() does', async () => {
    if (!database.available) return;
    const { claimed, done } = await runToCompletion('TE-PLAIN-1');
    const [created, running, final] = eventsOf('TE-PLAIN-1');
    expect(created.status).toBe(TaskStatus.Waiting);
    expect(running).toEqual(statusEvent(claimed).payload);
    expect(final).toEqual(statusEvent(done).payload);
    expect(final.webhook).toBe(false);
  });

  it('says webhook: true on the final event of a submission that named one', async () => {
    if (!database.available) return;
    const { done } = await runToCompletion('TE-HOOK-1', 'https://receiver.example/hook');
    const final = eventsOf('TE-HOOK-1').at(-1)!;
    expect(final).toEqual(statusEvent(done).payload);
    expect(final.webhook).toBe(true);
  });

  it('writes one 执行中 event per task when several are claimed in one statement', async () => {
    if (!database.available) return;
    const numbers = ['TE-BATCH-1', 'TE-BATCH-2', 'TE-BATCH-3'];
    for (const taskNumber of numbers) {
      await repo.create({ taskNumber, appId: 'demo-agent', kind: 'agent', accountId: 7, apiKeyId: 9, mode: 'async', request: requestOf(), idempotencyKey: null, requestHash: null });
    }
    const claimed = await repo.claim('worker-b', 30_000, 5);
    expect(claimed.map((t) => t.taskNumber)).toEqual(numbers);
    await new Promise((r) => setImmediate(r));
    for (const task of claimed) {
      const running = eventsOf(task.taskNumber).filter((e) => e.status === TaskStatus.Running);
      expect(running).toEqual([statusEvent(task).payload]);
    }
  });
});
