import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import { requireActor } from '../../domain/access';
import type { Actor, AppRecord } from '../../domain/types';

export const MAX_APPS_PAGE_SIZE = 100;

/** The apps the caller may run: its own and the public ones (all of them for an admin). */
export async function listApps(ctx: TasksContext, actorIn: Actor | undefined, input: { page: number; pageSize: number; kind?: string }): Promise<{ items: AppRecord[]; total: number; page: number; pageSize: number }> {
  const actor = requireActor(actorIn);
  const page = input.page || 1;
  const pageSize = input.pageSize || 20;
  if (page < 1) throw AppError.field(['query', 'page'], 'must be at least 1', 'too_small');
  if (pageSize < 1 || pageSize > MAX_APPS_PAGE_SIZE) throw AppError.field(['query', 'page_size'], `between 1 and ${MAX_APPS_PAGE_SIZE}`, 'size');
  const { items, total } = await ctx.apps.list({ accountId: actor.accountId, isAdmin: actor.isAdmin, kind: input.kind || undefined }, (page - 1) * pageSize, pageSize);
  return { items, total, page, pageSize };
}
