import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import { hashReporterToken, newReporterToken } from '../../domain/reporter-token';
import type { Actor } from '../../domain/types';
import type { AppWithToken } from './create-app';
import { getOwnApp } from './get-app';

/** A new reporter token for an externally-run app; the previous one stops working at once. */
export async function rotateReporterToken(ctx: TasksContext, actor: Actor | undefined, appId: string): Promise<AppWithToken> {
  const app = await getOwnApp(ctx, actor, appId);
  if (app.provider !== 'external') throw new AppError('FAILED_PRECONDITION', `app ${appId} is not run externally; it has no reporter token`);
  const reporterToken = newReporterToken();
  return { app: await ctx.apps.update(appId, { reporterTokenHash: hashReporterToken(reporterToken) }), reporterToken };
}
