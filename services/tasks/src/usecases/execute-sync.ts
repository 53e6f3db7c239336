import { AppError, TaskStatus } from '@tollgate/kit';
import type { TasksContext } from '../context';
import type { CompletionJson, TaskRecord } from '../domain/types';
import { toCompletion } from '../execution/completion';
import { failureOf, NO_USAGE, outcomeError, runTask } from '../execution/runner';
import { StopRequested } from '../execution/running';
import { announced, executorFor } from '../executors';
import { providerFor } from '../providers';
import type { NewTask } from '../repo/task-repo';
import { findReplay, prepareExecution, taskRowOf, type ExecuteInput, type PreparedExecution } from './prepare-execution';
import { syncReplay } from './replay';

export interface SyncAnswer {
  completion: CompletionJson;
  taskNumber: string;
  replayed: boolean;
}

export interface SyncOptions {
  /** Aborted when the caller goes away: the run stops and the task ends 已取消. */
  signal: AbortSignal;
  /** Streamed runs: told once the execution is admitted, before any fragment. */
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
 * Runs an execution in the caller's request: checks (nothing reserved for a 404/422), admission,
 * the run, then its task row written once in its final state with its status event (one
 * statement). The admission's settlement by that outcome is handed to the billing link before the
 * answer goes back, without waiting for billing: every admission this replica asks for afterwards
 * is decided after it (the key's concurrency slot is free for its next request), and a settlement
 * lost to a crash is made by the reconciler from the task row.
 */
export async function executeSync(ctx: TasksContext, input: ExecuteInput, options: SyncOptions): Promise<SyncAnswer> {
  const prepared = await ctx.admitting.run(async () => {
    const p = await prepareExecution(ctx, { ...input, mode: 'sync' });
    if (!p.replay && input.payer) await ctx.admissions.admit(input.actor, input.payer, { kind: p.app.kind, appId: p.app.id, taskNumber: p.taskNumber, maxTokens: p.request.max_tokens, deadline: input.deadline });
    return p;
  });
  const { app, request, taskNumber, requestHash } = prepared;
  if (prepared.replay) return { completion: syncReplay(prepared.replay), taskNumber: prepared.replay.taskNumber, replayed: true };
  if (input.idempotencyKey) return executeKeyed(ctx, input, options, prepared);

  const startedAt = new Date();
  const row: NewTask = { ...taskRowOf(input, prepared, 'sync', { ...request, stream: options.onDelta !== undefined }), startedAt };
  const run = ctx.running.start(taskNumber);
  const onCallerGone = () => run.abort('client-gone');
  if (options.signal.aborted) onCallerGone();
  options.signal.addEventListener('abort', onCallerGone, { once: true });
  let delivered = false;
  let written: TaskRecord | 'duplicate' | undefined;
  try {
    await options.onStart?.({ id: `chatcmpl-${taskNumber}`, taskNumber, created: Math.floor(startedAt.getTime() / 1000), model: request.model || app.model, extra: announced(app, request) });
    const output = await executorFor(app.kind).run(
      { app, request: row.request, taskNumber, accountId: input.actor.accountId },
      {
        provider: providerFor(app),
        conversations: ctx.conversations,
        signal: run.signal,
        timeoutMs: app.timeoutMs || ctx.settings.providerTimeoutMs,
        onDelta: options.onDelta && (async (text) => {
          await options.onDelta!(text);
          if (text) delivered = true;
        }),
        // A sync task has no row until it ends: its last progress report is written with its final state.
        reportProgress: async (progress) => {
          row.progress = progress;
        },
      },
    );
    run.signal.throwIfAborted();
    // From here the outcome is decided: the final-state event this write publishes must not stop the run.
    run.finish();
    const completion = toCompletion(taskNumber, startedAt, output);
    written = await ctx.tasks.create({ ...row, status: TaskStatus.Completed, result: completion, usage: output.usage }, { deadline: input.deadline });
    if (written === 'duplicate') return await replayAfterRace(ctx, input, requestHash, taskNumber);
    void ctx.admissions.settleTask(written);
    return { completion, taskNumber, replayed: false };
  } catch (err) {
    if (written !== undefined) throw err;
    const stop = run.signal.aborted ? (run.signal.reason as StopRequested) : undefined;
    run.finish();
    if (stop instanceof StopRequested) {
      // Who left mid-stream pays for what was delivered (the usage recorded on the cancelled task).
      written = await ctx.tasks.create({
        ...row,
        status: TaskStatus.Cancelled,
        comments: stop.why === 'client-gone' ? 'the client closed the connection before the answer was complete' : `the run stopped: ${stop.why}`,
        usage: delivered ? NO_USAGE : null,
      }, { deadline: input.deadline });
      if (written !== 'duplicate') void ctx.admissions.settleTask(written);
      throw AppError.conflict(`task ${taskNumber} stopped: ${stop.why}`, { task_number: taskNumber });
    }
    const failure = failureOf(err, ctx.log);
    written = await ctx.tasks.create({ ...row, status: TaskStatus.Failed, comments: failure.comments }, { deadline: input.deadline });
    if (written !== 'duplicate') void ctx.admissions.settleTask(written);
    throw outcomeError(taskNumber, { kind: 'failed', task: written === 'duplicate' ? null : written, ...failure });
  } finally {
    options.signal.removeEventListener('abort', onCallerGone);
    run.finish();
    // The race's loser has no task of its own: refund. A row write that failed may still have
    // committed: its admission is left to run out its lease and be settled by what the table says.
    if (input.payer && written === 'duplicate') void ctx.admissions.refund(taskNumber);
    else if (written === undefined) ctx.admissions.release(taskNumber);
  }
}

/**
 * A run with an Idempotency-Key takes its key before anything runs: its task row is written at once,
 * 执行中 and leased to this replica, and the runner heartbeats it and moves it to its final state. A
 * request with the same key arriving meanwhile finds that row: 409 while it runs (different body:
 * 409 always), its answer once it has ended. So two runs of one key never both reach a client, and
 * what reaches one is charged.
 */
async function executeKeyed(ctx: TasksContext, input: ExecuteInput, options: SyncOptions, prepared: PreparedExecution): Promise<SyncAnswer> {
  const { app, request, taskNumber, requestHash } = prepared;
  const startedAt = new Date();
  let claimed: TaskRecord | 'duplicate' | undefined;
  try {
    claimed = await ctx.tasks.create({
      ...taskRowOf(input, prepared, 'sync', { ...request, stream: options.onDelta !== undefined }),
      status: TaskStatus.Running,
      startedAt,
      lease: { owner: ctx.settings.workerId, expiresAt: new Date(startedAt.getTime() + ctx.settings.leaseMs) },
    }, { deadline: input.deadline });
  } finally {
    // Not written (or its fate unknown): nothing runs; the admission is refunded (duplicate) or left
    // to its lease and the reconciler, which settles it by what the table says.
    if (claimed === 'duplicate' && input.payer) void ctx.admissions.refund(taskNumber);
    if (claimed === undefined || claimed === 'duplicate') ctx.admissions.release(taskNumber);
  }
  if (claimed === 'duplicate') return replayAfterRace(ctx, input, requestHash, taskNumber);

  const head: StreamHead = { id: `chatcmpl-${taskNumber}`, taskNumber, created: Math.floor(startedAt.getTime() / 1000), model: request.model || app.model, extra: announced(app, request) };
  const outcome = await runTask(ctx, claimed, app, { callerSignal: options.signal, onStart: options.onStart && (() => options.onStart!(head)), onDelta: options.onDelta });
  if (outcome.kind === 'completed') return { completion: outcome.completion, taskNumber, replayed: false };
  throw outcomeError(taskNumber, outcome);
}

/** Two requests with one Idempotency-Key raced past the first check: answer from the one that won. */
async function replayAfterRace(ctx: TasksContext, input: ExecuteInput, hash: string | null, taskNumber: string): Promise<SyncAnswer> {
  const earlier = await findReplay(ctx, input.actor, input.idempotencyKey, hash);
  if (!earlier) throw AppError.conflict(`task number ${taskNumber} is already taken`);
  return { completion: syncReplay(earlier as TaskRecord), taskNumber: earlier.taskNumber, replayed: true };
}
