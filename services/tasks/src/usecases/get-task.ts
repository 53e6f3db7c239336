import type { TasksContext } from '../context';
import { canSeeTask, taskNotFound } from '../domain/access';
import type { Actor, TaskRecord } from '../domain/types';

/** The caller's task; an unknown or foreign task number is the same 404. */
export async function getTask(ctx: TasksContext, actor: Actor | undefined, taskNumber: string): Promise<TaskRecord> {
  const task = await ctx.tasks.find(taskNumber);
  if (!task || !canSeeTask(actor, task)) throw taskNotFound(taskNumber);
  return task;
}
