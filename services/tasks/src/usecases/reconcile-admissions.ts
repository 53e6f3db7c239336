import type { TasksContext } from '../context';
import { isFinal } from '../domain/status';
import { refundOf, settlementOf, type Settlement } from '../domain/settlement';

const BATCH = 500;
/** Rounds per call: a settlement call that keeps failing must not keep this loop busy. */
const MAX_ROUNDS = 20;

/**
 * Settles the admissions whose lease ran out (their replica stopped, or its settlement call failed)
 * by what happened to their task: a final task by its outcome, a task still waiting or running by
 * renewing the lease, a task that never came to exist by a refund. Any replica may run it; every
 * step is idempotent. Returns how many admissions it settled.
 */
export async function reconcileAdmissions(ctx: Pick<TasksContext, 'admissions' | 'tasks' | 'log'>): Promise<number> {
  let settled = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { taskNumbers } = await ctx.admissions.billing.expiredAdmissions({ limit: BATCH });
    if (taskNumbers.length === 0) break;
    const mine = taskNumbers.filter((n) => ctx.admissions.holds(n));
    const tasks = new Map((await ctx.tasks.findMany(taskNumbers.filter((n) => !ctx.admissions.holds(n)))).map((t) => [t.taskNumber, t]));
    const renew = [...mine];
    const settlements: Settlement[] = [];
    for (const n of taskNumbers) {
      if (ctx.admissions.holds(n)) continue;
      const task = tasks.get(n);
      if (!task) settlements.push(refundOf(n));
      else if (isFinal(task.status)) settlements.push(settlementOf(task));
      else renew.push(n);
    }
    await ctx.admissions.renew(renew);
    await ctx.admissions.settle(settlements);
    settled += settlements.length;
    if (settlements.length > 0) ctx.log.warn({ settled: settlements.length, renewed: renew.length }, 'settled admissions whose lease ran out');
    if (taskNumbers.length < BATCH) break;
  }
  return settled;
}
