import { AppError, instantField } from '@tollgate/kit';
import type { TasksContext } from '../context';
import { isTaskStatus } from '../domain/status';
import type { Actor, TaskRecord } from '../domain/types';

export const MAX_PAGE_SIZE = 100;

export interface ListTasksInput {
  page: number;
  pageSize: number;
  statuses: string[];
  kind?: string;
  appId?: string;
  createdFrom?: string;
  createdTo?: string;
}

const parseTime = (value: string | undefined, field: string): Date | undefined => (value ? instantField(value, ['body', field]) : undefined);

/** The caller's account's tasks (every account's for admin credentials), newest first. */
export async function listTasks(ctx: TasksContext, actor: Actor, input: ListTasksInput): Promise<{ items: TaskRecord[]; total: number; page: number; pageSize: number }> {
  const page = input.page || 1;
  const pageSize = input.pageSize || 20;
  if (page < 1) throw AppError.field(['body', 'page'], 'must be at least 1', 'too_small');
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw AppError.field(['body', 'page_size'], `between 1 and ${MAX_PAGE_SIZE}`, 'size');
  const bad = input.statuses.find((s) => !isTaskStatus(s));
  if (bad !== undefined) throw AppError.field(['body', 'status'], `unknown status ${bad}`, 'enum');
  const { items, total } = await ctx.tasks.list(
    {
      accountId: actor.isAdmin ? undefined : actor.accountId,
      statuses: input.statuses,
      kind: input.kind || undefined,
      appId: input.appId || undefined,
      createdFrom: parseTime(input.createdFrom, 'created_from'),
      createdTo: parseTime(input.createdTo, 'created_to'),
    },
    (page - 1) * pageSize,
    pageSize,
  );
  return { items, total, page, pageSize };
}
