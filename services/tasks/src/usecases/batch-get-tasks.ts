import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../context';
import { canSeeTask } from '../domain/access';
import type { Actor, TaskRecord } from '../domain/types';

export const MAX_BATCH = 100;

/** The caller's tasks among `taskNumbers`, in the order asked; unknown and foreign ones are listed as not found alike. */
export async function batchGetTasks(ctx: TasksContext, actor: Actor, taskNumbers: string[]): Promise<{ items: TaskRecord[]; notFound: string[] }> {
  if (taskNumbers.length === 0 || taskNumbers.length > MAX_BATCH) {
    throw AppError.field(['body', 'task_numbers'], `between 1 and ${MAX_BATCH} task numbers`, 'size');
  }
  const unique = [...new Set(taskNumbers)];
  const found = new Map((await ctx.tasks.findMany(unique)).filter((t) => canSeeTask(actor, t)).map((t) => [t.taskNumber, t]));
  return {
    items: unique.flatMap((n) => found.get(n) ?? []),
    notFound: unique.filter((n) => !found.has(n)),
  };
}
