import type { TasksContext } from '../../context';
import type { Actor, AppRecord } from '../../domain/types';
import { getOwnApp } from './get-app';

/** Deletes the app; its past tasks stay queryable, its waiting tasks fail when a worker reaches them. */
export async function deleteApp(ctx: TasksContext, actor: Actor | undefined, appId: string): Promise<AppRecord> {
  const app = await getOwnApp(ctx, actor, appId);
  await ctx.apps.delete(appId);
  return app;
}
