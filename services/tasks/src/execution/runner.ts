import { AppError, TaskStatus, isAppError, isCapacityError, type Logger } from '@tollgate/kit';
import type { AppRecord, CompletionJson, TaskRecord, Usage } from '../domain/types';
import { executorFor } from '../executors';
import { isProviderError, providerFor } from '../providers';
import type { ConversationRepo } from '../repo/conversation-repo';
import type { Admissions } from '../admission/admissions';
import type { TaskRepo } from '../repo/task-repo';
import { toCompletion } from './completion';
import { StopRequested, type RunningTasks, type StopReason } from './running';

export interface RunnerDeps {
  tasks: TaskRepo;
  conversations: ConversationRepo;
  admissions: Admissions;
  running: RunningTasks;
  log: Logger;
  settings: { workerId: string; leaseMs: number; providerTimeoutMs: number };
}

/** The usage of a run that delivered part of its answer before it stopped: it is charged, at no tokens. */
export const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export type RunOutcome =
  | { kind: 'completed'; task: TaskRecord; completion: CompletionJson }
  | { kind: 'failed'; task: TaskRecord | null; reason: 'upstream' | 'timeout' | 'internal' | 'busy'; comments: string }
  | { kind: 'stopped'; why: StopReason };

export interface RunOptions {
  /** The caller's own cancellation (a sync client that went away). */
  callerSignal?: AbortSignal;
  /** A streamed sync run: told before the run starts (the first chunk). */
  onStart?: () => Promise<void>;
  onDelta?: (text: string) => Promise<void>;
}

export function failureOf(err: unknown, log: Logger): { reason: 'upstream' | 'timeout' | 'internal' | 'busy'; comments: string } {
  if (isProviderError(err)) return { reason: err.reason, comments: err.message };
  if (isAppError(err)) return { reason: err.code === 'UNAVAILABLE' ? 'busy' : 'internal', comments: err.message };
  if (isCapacityError(err)) return { reason: 'busy', comments: 'Tollgate was at capacity while running the task' };
  log.error({ err }, 'task run failed unexpectedly');
  return { reason: 'internal', comments: 'internal error while running the task' };
}

/**
 * Runs an async task this replica holds (status 执行中, leased to settings.workerId): heartbeats the
 * lease, runs the app's kind, and writes the final state only if the task is still ours and running,
 * so a task cancelled, finished by an admin or re-claimed elsewhere is never finished twice. Right
 * after the final state commits, its admission is settled by that outcome.
 */
export async function runTask(deps: RunnerDeps, task: TaskRecord, app: AppRecord, options: RunOptions = {}): Promise<RunOutcome> {
  const { tasks, admissions, running, settings } = deps;
  const log = deps.log.child({ taskNumber: task.taskNumber });
  const owner = settings.workerId;
  const run = running.start(task.taskNumber);
  const onCallerGone = () => run.abort('client-gone');
  if (options.callerSignal?.aborted) onCallerGone();
  options.callerSignal?.addEventListener('abort', onCallerGone, { once: true });
  const heartbeat = setInterval(() => {
    tasks.heartbeat(task.taskNumber, owner, settings.leaseMs).then(
      (held) => held || run.abort('lease-lost'),
      (err: unknown) => log.warn({ err }, 'heartbeat failed'),
    );
  }, Math.max(50, Math.floor(settings.leaseMs / 3)));

  admissions.hold(task.taskNumber);
  const finish = async (to: TaskStatus, change: Parameters<TaskRepo['transition']>[3]) => {
    // The write's own condition decides from here; its final-state event must not stop this run.
    run.finish();
    const done = await tasks.transition(task.taskNumber, [TaskStatus.Running], to, change, owner);
    // Handed to the billing link, not awaited: the worker's slot is free at once (see Admissions).
    if (done) void admissions.settleTask(done);
    return done;
  };

  // What reached a sync caller before it left is paid for (a cancelled task with usage).
  let delivered = false;
  const onDelta = options.onDelta;
  try {
    await options.onStart?.();
    const output = await executorFor(app.kind).run(
      { app, request: task.request, taskNumber: task.taskNumber, accountId: task.accountId },
      {
        provider: providerFor(app),
        conversations: deps.conversations,
        signal: run.signal,
        timeoutMs: app.timeoutMs || settings.providerTimeoutMs,
        onDelta: onDelta && (async (text) => {
          await onDelta(text);
          if (text) delivered = true;
        }),
        reportProgress: async (progress) => {
          await tasks.transition(task.taskNumber, [TaskStatus.Running], TaskStatus.Running, { progress }, owner);
        },
      },
    );
    run.signal.throwIfAborted();
    const completion = toCompletion(task.taskNumber, task.startedAt ?? task.createdAt, output);
    const done = await finish(TaskStatus.Completed, { result: completion, usage: output.usage });
    if (!done) return { kind: 'stopped', why: 'cancelled' };
    return { kind: 'completed', task: done, completion };
  } catch (err) {
    const stop = run.signal.aborted ? (run.signal.reason as StopRequested) : undefined;
    if (stop instanceof StopRequested) {
      if (stop.why === 'client-gone') await finish(TaskStatus.Cancelled, { comments: 'the client closed the connection before the answer was complete', ...(delivered ? { usage: NO_USAGE } : {}) });
      log.info({ why: stop.why }, 'task run stopped');
      return { kind: 'stopped', why: stop.why };
    }
    const failure = failureOf(err, log);
    const done = await finish(TaskStatus.Failed, { comments: failure.comments });
    return { kind: 'failed', task: done, ...failure };
  } finally {
    clearInterval(heartbeat);
    options.callerSignal?.removeEventListener('abort', onCallerGone);
    admissions.release(task.taskNumber);
    run.finish();
  }
}

/** The AppError a sync caller gets for an outcome that is not a completion. */
export function outcomeError(taskNumber: string, outcome: Exclude<RunOutcome, { kind: 'completed' }>): AppError {
  if (outcome.kind === 'stopped') {
    return AppError.conflict(outcome.why === 'cancelled' ? `task ${taskNumber} was cancelled` : `task ${taskNumber} stopped: ${outcome.why}`, { task_number: taskNumber });
  }
  // `fault: 'upstream'`: the model provider failed, not Tollgate (the gateway logs it as a warning).
  if (outcome.reason === 'timeout') return new AppError('DEADLINE_EXCEEDED', outcome.comments, { task_number: taskNumber, fault: 'upstream' });
  if (outcome.reason === 'upstream') return new AppError('UNAVAILABLE', outcome.comments, { task_number: taskNumber, fault: 'upstream' });
  if (outcome.reason === 'busy') return new AppError('UNAVAILABLE', outcome.comments, { task_number: taskNumber, retryAfterSeconds: 1 });
  return new AppError('INTERNAL', outcome.comments, { task_number: taskNumber });
}
