import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import { canChangeApp, canSeeApp, requireActor } from '../../domain/access';
import type { Actor, AppRecord } from '../../domain/types';

/** An app the caller may see (its own, a public one, any for an admin); 404 otherwise. */
export async function getApp(ctx: TasksContext, actorIn: Actor | undefined, appId: string): Promise<AppRecord> {
  const actor = requireActor(actorIn);
  const app = await ctx.apps.find(appId);
  if (!app || !canSeeApp(actor, app)) throw AppError.notFound(`app ${appId} not found`);
  return app;
}

/** An app the caller may change: 404 when invisible, 403 when visible but someone else's. */
export async function getOwnApp(ctx: TasksContext, actorIn: Actor | undefined, appId: string): Promise<AppRecord> {
  const actor = requireActor(actorIn);
  const app = await getApp(ctx, actor, appId);
  if (!canChangeApp(actor, app)) throw AppError.forbidden(`app ${appId} belongs to another account; only its owner or an administrator may change it`);
  return app;
}
