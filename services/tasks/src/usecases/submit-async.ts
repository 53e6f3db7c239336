import { AppError, TASKS_SUBMITTED_SUBJECT, TaskStatus } from '@tollgate/kit';
import type { TasksContext } from '../context';
import { announced } from '../executors';
import { estimateTime } from './estimate-time';
import { findReplay, prepareExecution, taskRowOf, type ExecuteInput } from './prepare-execution';
import { asyncReplay, type SubmitAnswer } from './replay';

/**
 * Queues a task (等待中) in the tasks table: checks (nothing reserved for a 404/422), admission, one
 * insert of the task and its event. Tollgate's workers run it; an app of the `external` provider is
 * run by its reporter instead, through the status update endpoint. The admission is settled when
 * the task reaches its final state.
 */
export function submitAsync(ctx: TasksContext, input: ExecuteInput): Promise<SubmitAnswer> {
  return ctx.admitting.run(() => submit(ctx, input));
}

async function submit(ctx: TasksContext, input: ExecuteInput): Promise<SubmitAnswer> {
  const prepared = await prepareExecution(ctx, { ...input, mode: 'async' });
  const { app, request, taskNumber, requestHash } = prepared;
  if (prepared.replay) return asyncReplay(ctx, prepared.replay);
  const mode = app.provider === 'external' ? 'external' : 'async';
  if (input.payer) await ctx.admissions.admit(input.actor, input.payer, { kind: app.kind, appId: app.id, taskNumber, maxTokens: request.max_tokens, deadline: input.deadline });

  let created;
  try {
    created = await ctx.tasks.create(taskRowOf(input, prepared, mode), { deadline: input.deadline });
  } finally {
    // The task now waits in the table (or the insert's fate is unknown): the reconciler watches its admission.
    ctx.admissions.release(taskNumber);
  }
  if (created === 'duplicate') {
    if (input.payer) void ctx.admissions.refund(taskNumber);
    const earlier = await findReplay(ctx, input.actor, input.idempotencyKey, requestHash);
    if (!earlier) throw AppError.conflict(`task number ${taskNumber} is already taken`);
    return asyncReplay(ctx, earlier);
  }
  if (mode === 'async') {
    await ctx.bus.publish(TASKS_SUBMITTED_SUBJECT, { task_number: taskNumber }).catch((err: unknown) => ctx.log.warn({ err }, 'wake-up not published; workers poll'));
  }
  return {
    detail: mode === 'async' ? 'task accepted; poll GET /v1/task-query/<task_number> for its result' : 'task accepted; the external app reports its progress',
    task_number: taskNumber,
    status: TaskStatus.Waiting,
    estimated_time: await estimateTime(ctx, app.id, mode),
    replayed: false,
    extra: announced(app, request),
  };
}
