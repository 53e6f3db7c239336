import { TaskStatus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { settlementOf } from '../../src/domain/settlement';
import type { TaskRequest } from '../../src/domain/types';
import { taskRepoHarness, type TaskRepoHarness } from '../support/task-repo';

const request: TaskRequest = { messages: [{ role: 'user', content: 'hello' }], call_params: {}, stream: true };

// A keyed sync run's row is written 执行中 with a lease before it runs. If its replica dies (no more
// heartbeats), the abandoned-sync sweep fails it once the lease has run out, and its admission is
// settled as a refund by that outcome; a run whose lease is still alive is left alone.
describe('keyed sync runs whose replica stopped', () => {
  const database = useTestDatabase('tasks');
  let h: TaskRepoHarness;
  beforeAll(async () => {
    if (!database.available) return;
    h = await taskRepoHarness(database.url);
  });
  afterAll(async () => {
    await h?.close();
  });

  const keyed = (taskNumber: string, leaseEnds: Date) =>
    h.repo.create({
      taskNumber, appId: 'demo-agent', kind: 'agent', accountId: 1, apiKeyId: 1, mode: 'sync', request,
      idempotencyKey: `key-${taskNumber}`, requestHash: 'h', status: TaskStatus.Running, startedAt: new Date(), lease: { owner: 'replica-gone', expiresAt: leaseEnds },
    });

  it('fails the run whose lease ran out, refunds it, and leaves a live one running', async () => {
    if (!database.available) return;
    await keyed('KS-DEAD-1', new Date(Date.now() - 1_000));
    await keyed('KS-LIVE-1', new Date(Date.now() + 60_000));
    const failed = await h.repo.failAbandonedSync('the replica running this synchronous task stopped before it finished');
    expect(failed.map((t) => t.taskNumber)).toEqual(['KS-DEAD-1']);
    expect(failed[0].status).toBe(TaskStatus.Failed);
    expect(settlementOf(failed[0]).outcome).toBe('refund');
    expect((await h.repo.find('KS-LIVE-1'))?.status).toBe(TaskStatus.Running);
    expect(await h.repo.heartbeat('KS-LIVE-1', 'replica-gone', 60_000)).toBe(true);
  });
});
