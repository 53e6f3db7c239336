import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../../context';
import { requireActor } from '../../domain/access';
import { hashReporterToken, newReporterToken } from '../../domain/reporter-token';
import type { Actor, AppRecord } from '../../domain/types';
import type { NewApp } from '../../repo/app-repo';
import { checkAppFields, checkAppId, defaultModel, type AppFields } from './app-rules';

export interface CreateAppInput extends AppFields {
  appId: string;
  kind: string;
  apiKey: string;
  public: boolean;
}

/** The created app and, for an externally-run app, its reporter token (shown this once). */
export interface AppWithToken {
  app: AppRecord;
  reporterToken?: string;
}

/** An app owned by the caller's account; only admin credentials may make it public. */
export async function createApp(ctx: TasksContext, actorIn: Actor | undefined, input: CreateAppInput): Promise<AppWithToken> {
  const actor = requireActor(actorIn);
  checkAppId(input.appId);
  const settings = checkAppFields(input.kind, input);
  if (input.public && !actor.isAdmin) throw AppError.forbidden('only an administrator may make an app public');
  const reporterToken = input.provider === 'external' ? newReporterToken() : undefined;
  const app: NewApp = {
    id: input.appId,
    kind: input.kind,
    name: input.name.trim(),
    ownerAccountId: actor.accountId,
    provider: input.provider as NewApp['provider'],
    model: input.model.trim() || defaultModel(input.provider),
    systemPrompt: input.systemPrompt,
    settings,
    public: input.public,
    baseUrl: input.baseUrl,
    apiKey: input.apiKey,
    timeoutMs: input.timeoutMs,
    reporterTokenHash: reporterToken ? hashReporterToken(reporterToken) : null,
  };
  const created = await ctx.apps.create(app);
  if (!created) throw new AppError('ALREADY_EXISTS', `app ${input.appId} already exists`);
  return { app: created, reporterToken };
}
