import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import { requireActor } from '../../domain/access';
import { hashReporterToken, newReporterToken } from '../../domain/reporter-token';
import type { Actor } from '../../domain/types';
import type { AppChanges } from '../../repo/app-repo';
import { checkAppFields, defaultModel } from './app-rules';
import type { AppWithToken } from './create-app';
import { getOwnApp } from './get-app';

export type AppPatch = Partial<{ name: string; provider: string; model: string; systemPrompt: string; settings: Record<string, unknown>; public: boolean; baseUrl: string; apiKey: string; timeoutMs: number }>;

/** Changes the fields present; the app's id, kind and owner never change. Turning an app external issues its reporter token. */
export async function updateApp(ctx: TasksContext, actorIn: Actor | undefined, appId: string, patch: AppPatch): Promise<AppWithToken> {
  const actor = requireActor(actorIn);
  const app = await getOwnApp(ctx, actor, appId);
  if (patch.public !== undefined && patch.public !== app.public && !actor.isAdmin) throw AppError.forbidden('only an administrator may change whether an app is public');
  const merged = { ...app, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as typeof app;
  const settings = checkAppFields(app.kind, merged);
  const reporterToken = merged.provider === 'external' && !app.reporterTokenHash ? newReporterToken() : undefined;
  const changes: AppChanges = {
    name: merged.name.trim(),
    provider: merged.provider,
    model: merged.model.trim() || defaultModel(merged.provider),
    systemPrompt: merged.systemPrompt,
    settings,
    public: merged.public,
    baseUrl: merged.baseUrl,
    apiKey: merged.apiKey,
    timeoutMs: merged.timeoutMs,
    ...(reporterToken && { reporterTokenHash: hashReporterToken(reporterToken) }),
    ...(merged.provider !== 'external' && { reporterTokenHash: null }),
  };
  return { app: await ctx.apps.update(appId, changes), reporterToken };
}
