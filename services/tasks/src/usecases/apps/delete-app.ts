import { TaskStatus } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import type { Actor, AppRecord } from '../../domain/types';
import { getOwnApp } from './get-app';

/** Tasks failed per statement round when an external app is deleted. */
const FAIL_BATCH = 100;

/**
 * Deletes the app; its past tasks stay queryable. Its waiting tasks fail when a worker reaches
 * them; an external app's are reached by no worker, so its unfinished tasks fail (and are refunded)
 * here: nothing of it would ever report them, and an app made later under the same id must not.
 */
export async function deleteApp(ctx: TasksContext, actor: Actor | undefined, appId: string): Promise<AppRecord> {
  const app = await getOwnApp(ctx, actor, appId);
  await ctx.apps.delete(appId);
  if (app.provider === 'external') await failUnfinished(ctx, appId);
  return app;
}

async function failUnfinished(ctx: TasksContext, appId: string): Promise<void> {
  const comments = `app ${appId} no longer exists`;
  for (;;) {
    const unfinished = await ctx.tasks.unfinishedOfExternalApp(appId, FAIL_BATCH);
    let failed = 0;
    for (const task of unfinished) {
      const updated = await ctx.tasks.transition(task.taskNumber, [TaskStatus.Waiting, TaskStatus.Running], TaskStatus.Failed, { comments });
      if (!updated) continue;
      failed++;
      void ctx.admissions.settleTask(updated);
    }
    // A round that failed nothing was raced by the tasks' own ends: what is left is final.
    if (unfinished.length < FAIL_BATCH || failed === 0) return;
  }
}
