import { AppError } from '@tollgate/kit';
import type { TasksContext } from '../context';
import type { CompletionJson, TaskRecord } from '../domain/types';
import { outcomeError, runTask } from '../execution/runner';
import { announced } from '../executors';
import { findReplay, prepareExecution, type ExecuteInput } from './prepare-execution';
import { syncReplay } from './replay';

export interface SyncAnswer {
  completion: CompletionJson;
  taskNumber: string;
  replayed: boolean;
}

export interface SyncOptions {
  /** Aborted when the caller goes away: the run stops and the task ends 已取消. */
  signal: AbortSignal;
  /** Streamed runs: told once the task exists, before any fragment. */
  onStart?: (head: StreamHead) => Promise<void>;
  /** Streamed runs: each fragment of the answer, as produced. */
  onDelta?: (text: string) => Promise<void>;
}

export interface StreamHead {
  id: string;
  taskNumber: string;
  created: number;
  model: string;
  /** What the kind tells the client before the answer (a chatbot's conversation_id). */
  extra: Record<string, unknown>;
}

/**
 * Runs an execution in the caller's request: a task row (执行中, leased to this replica) records it
 * and its final state is published like any other, so billing settles sync runs the same way.
 */
export async function executeSync(ctx: TasksContext, input: ExecuteInput, options: SyncOptions): Promise<SyncAnswer> {
  const prepared = await prepareExecution(ctx, { ...input, mode: 'sync' });
  const { app, request, taskNumber, requestHash } = prepared;
  if (prepared.replay) return { completion: syncReplay(prepared.replay), taskNumber: prepared.replay.taskNumber, replayed: true };

  const created = await ctx.tasks.create({
    taskNumber,
    appId: app.id,
    kind: app.kind,
    accountId: input.actor.accountId,
    apiKeyId: input.actor.apiKeyId,
    mode: 'sync',
    request: { ...request, stream: options.onDelta !== undefined },
    idempotencyKey: input.idempotencyKey || null,
    requestHash,
    lease: { owner: ctx.settings.workerId, ms: ctx.settings.leaseMs },
  });
  if (created === 'duplicate') return replayAfterRace(ctx, input, requestHash, taskNumber);
  await ctx.outbox.flush();
  await options.onStart?.({ id: `chatcmpl-${taskNumber}`, taskNumber, created: Math.floor((created.startedAt ?? created.createdAt).getTime() / 1000), model: request.model || app.model, extra: announced(app, request) });

  const outcome = await runTask(ctx, created, app, { callerSignal: options.signal, onDelta: options.onDelta });
  if (outcome.kind !== 'completed') throw outcomeError(taskNumber, outcome);
  return { completion: outcome.completion, taskNumber, replayed: false };
}

/** Two requests with one Idempotency-Key raced past the first check: answer from the one that won. */
async function replayAfterRace(ctx: TasksContext, input: ExecuteInput, hash: string | null, taskNumber: string): Promise<SyncAnswer> {
  const earlier = await findReplay(ctx, input.actor, input.idempotencyKey, hash);
  if (!earlier) throw AppError.conflict(`task number ${taskNumber} is already taken`);
  return { completion: syncReplay(earlier as TaskRecord), taskNumber: earlier.taskNumber, replayed: true };
}
