import { TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { statusEvent } from '../../src/domain/events';
import type { TaskRequest } from '../../src/domain/types';
import type { TaskRepo } from '../../src/repo/task-repo';
import { taskRepoHarness, type TaskRepoHarness } from '../support/task-repo';

const request: TaskRequest = { messages: [{ role: 'user', content: 'hello' }], call_params: {}, stream: false };
const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };

// State changes asked for at the same moment go out in one statement; each caller still gets its
// own task back (or null), with its own event, exactly as if it had been written alone.
describe('task state changes written together', () => {
  const database = useTestDatabase('tasks');
  let h: TaskRepoHarness;
  let repo: TaskRepo;
  const statements: string[] = [];

  beforeAll(async () => {
    if (!database.available) return;
    h = await taskRepoHarness(database.url, (hot) => ({
      query: (text, values, options) => {
        statements.push(text);
        return hot.query(text, values, options);
      },
    }));
    repo = h.repo;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function running(prefix: string, n: number, owner: string) {
    const numbers = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
    for (const taskNumber of numbers) {
      await repo.create({ taskNumber, appId: 'demo-agent', kind: 'agent', accountId: 3, apiKeyId: 4, mode: 'async', request, idempotencyKey: null, requestHash: null });
    }
    const claimed = await repo.claim(owner, 60_000, n);
    expect(claimed.map((t) => t.taskNumber)).toEqual(numbers);
    return numbers;
  }

  const updates = () => statements.filter((s) => /UPDATE tasks SET/.test(s) && !/status = '执行中', lease_owner = \$1/.test(s)).length;

  it('finishes fifty tasks at once in far fewer statements, each with its own final row and event', async () => {
    if (!database.available) return;
    const numbers = await running('TT-MANY', 50, 'worker-m');
    statements.length = 0;
    const done = await Promise.all(numbers.map((n, i) => repo.transition(n, [TaskStatus.Running], TaskStatus.Completed, { result: { content: `answer ${i}` }, usage }, 'worker-m')));
    expect(updates()).toBeLessThan(10);
    await new Promise((r) => setImmediate(r));
    done.forEach((task, i) => {
      expect(task).toMatchObject({ taskNumber: numbers[i], status: TaskStatus.Completed, result: { content: `answer ${i}` }, usage, leaseOwner: null });
      expect(task!.finishedAt).toBeInstanceOf(Date);
      const final = h.events.filter((e) => e.task_number === numbers[i] && e.status === TaskStatus.Completed);
      expect(final).toEqual([statusEvent(task!).payload]);
    });
  });

  it('answers null for a change whose task is in another status or leased by another owner, and applies the others of its statement', async () => {
    if (!database.available) return;
    const [a, b, c] = await running('TT-MIX', 3, 'worker-x');
    const [wrongStatus, wrongOwner, right] = await Promise.all([
      repo.transition(a, [TaskStatus.Waiting], TaskStatus.Cancelled),
      repo.transition(b, [TaskStatus.Running], TaskStatus.Completed, { usage }, 'someone-else'),
      repo.transition(c, [TaskStatus.Running], TaskStatus.Failed, { comments: 'upstream failed' }, 'worker-x'),
    ]);
    expect(wrongStatus).toBeNull();
    expect(wrongOwner).toBeNull();
    expect(right).toMatchObject({ status: TaskStatus.Failed, comments: 'upstream failed' });
    const { rows } = await h.hot.query<{ task_number: string; status: string }>('SELECT task_number, status FROM tasks WHERE task_number = ANY($1::text[]) ORDER BY task_number', [[a, b, c]]);
    expect(rows.map((r) => r.status)).toEqual([TaskStatus.Running, TaskStatus.Running, TaskStatus.Failed]);
  });

  it('applies two changes of one task asked for at once in the order they were asked for', async () => {
    if (!database.available) return;
    const [t] = await running('TT-ORDER', 1, 'worker-o');
    const [progressed, finished, late] = await Promise.all([
      repo.transition(t, [TaskStatus.Running], TaskStatus.Running, { progress: { step: 1 } }, 'worker-o'),
      repo.transition(t, [TaskStatus.Running], TaskStatus.Completed, { usage }, 'worker-o'),
      repo.transition(t, [TaskStatus.Running], TaskStatus.Running, { progress: { step: 2 } }, 'worker-o'),
    ]);
    expect(progressed).toMatchObject({ status: TaskStatus.Running, progress: { step: 1 } });
    expect(finished).toMatchObject({ status: TaskStatus.Completed, progress: { step: 1 } });
    expect(late).toBeNull();
  });
});
