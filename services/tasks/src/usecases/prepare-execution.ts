import { AppError } from '@tollgate/kit';
import { checkSubmissionWebhook } from '../webhooks/url-policy';
import type { TasksContext } from '../context';
import { canSeeApp } from '../domain/access';
import { checkExecuteRequest } from '../domain/execute-request';
import { fingerprint } from '../domain/fingerprint';
import { TASK_NUMBER_PATTERN, newTaskNumber } from '../domain/task-number';
import type { Actor, AppRecord, ExecutionMode, TaskRecord, TaskRequest } from '../domain/types';
import type { NewTask } from '../repo/task-repo';
import { executorFor, prepareRequest } from '../executors';
import type { Payer } from '@tollgate/protos/tasks';

export interface ExecuteInput {
  actor: Actor;
  kind: string;
  appId: string;
  request: TaskRequest;
  /** Empty: none. */
  idempotencyKey: string;
  /** Generated here when empty. */
  taskNumber: string;
  mode: 'sync' | 'async';
  /** The key the execution is admitted against; absent = an internal caller's unbilled execution. */
  payer?: Payer;
  /** When the caller stops waiting (ms since the epoch), if it said. */
  deadline?: number;
}

export interface PreparedExecution {
  app: AppRecord;
  request: TaskRequest;
  taskNumber: string;
  requestHash: string | null;
  /** The earlier task of the same Idempotency-Key and body, to answer from instead of running again. */
  replay: TaskRecord | null;
}

/** The task row of a prepared execution, in `mode`; the caller adds its state. */
export function taskRowOf(input: ExecuteInput, prepared: PreparedExecution, mode: ExecutionMode, request: TaskRequest = prepared.request): NewTask {
  return {
    taskNumber: prepared.taskNumber,
    appId: prepared.app.id,
    kind: prepared.app.kind,
    accountId: input.actor.accountId,
    apiKeyId: input.actor.apiKeyId,
    mode,
    request,
    idempotencyKey: input.idempotencyKey || null,
    requestHash: prepared.requestHash,
  };
}

/** An app the actor may run under this kind's path; another kind's app is the same 404 as an unknown one. */
export async function loadRunnableApp(ctx: TasksContext, actor: Actor, kind: string, appId: string): Promise<AppRecord> {
  const app = await ctx.apps.find(appId);
  if (!app || app.kind !== kind || !canSeeApp(actor, app)) throw AppError.notFound(`app ${appId} not found for kind ${kind}`);
  return app;
}

/** The earlier task of this Idempotency-Key; 409 when it was used with a different request. */
export async function findReplay(ctx: TasksContext, actor: Actor, key: string, hash: string | null): Promise<TaskRecord | null> {
  if (!key) return null;
  const earlier = await ctx.tasks.findByIdempotencyKey(actor.accountId, key);
  if (earlier && earlier.requestHash !== hash) {
    throw AppError.conflict('this Idempotency-Key was already used with a different request', { task_number: earlier.taskNumber });
  }
  return earlier;
}

/**
 * Everything checked before anything is reserved or a task exists: kind, app (from the in-memory
 * catalogue), parameters (422), Idempotency-Key (409 or replay).
 */
export async function prepareExecution(ctx: TasksContext, input: ExecuteInput): Promise<PreparedExecution> {
  executorFor(input.kind);
  if (input.taskNumber && !TASK_NUMBER_PATTERN.test(input.taskNumber)) throw AppError.field(['task_number'], 'invalid task number');
  if (input.idempotencyKey.length > 255) throw AppError.field(['header', 'Idempotency-Key'], 'at most 255 characters', 'too_big');
  const checked = checkExecuteRequest(input.request);
  if (checked.webhook !== undefined) checkSubmissionWebhook(checked.webhook, ctx.settings.allowPrivateWebhooks);
  const app = await loadRunnableApp(ctx, input.actor, input.kind, input.appId);
  if (input.mode === 'sync' && app.provider === 'external') {
    throw new AppError('FAILED_PRECONDITION', `app ${app.id} runs outside Tollgate; submit its tasks with /async`);
  }
  const request = await prepareRequest(app, checked, { actor: input.actor, conversations: ctx.conversations });
  const requestHash = input.idempotencyKey ? fingerprint({ mode: input.mode, kind: input.kind, app_id: input.appId, request: checked }) : null;
  const replay = await findReplay(ctx, input.actor, input.idempotencyKey, requestHash);
  return { app, request, requestHash, replay, taskNumber: input.taskNumber || newTaskNumber() };
}
