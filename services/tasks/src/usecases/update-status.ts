import { AppError, TaskStatus } from '@tollgate/kit';
import type { TasksContext } from '../context';
import { canSeeTask, taskNotFound } from '../domain/access';
import { hashReporterToken } from '../domain/reporter-token';
import { assertTransition, isFinal, isTaskStatus } from '../domain/status';
import type { Actor, AppRecord, TaskRecord } from '../domain/types';
import type { TaskChange } from '../repo/task-repo';

export interface UpdateStatusInput {
  actor?: Actor;
  /** Secret of an externally-run app: authorises every change on that app's tasks. */
  reporterToken?: string;
  taskNumber: string;
  status: string;
  progress?: unknown;
  result?: unknown;
  comments?: string;
}

async function reporterApp(ctx: TasksContext, token: string | undefined): Promise<AppRecord | null> {
  if (!token) return null;
  const app = await ctx.apps.findByReporterTokenHash(hashReporterToken(token));
  if (!app || app.provider !== 'external') throw AppError.unauthenticated('unknown reporter token');
  return app;
}

/**
 * One state change through the state machine. Order: the task must be visible (404 otherwise), the
 * transition legal (409 naming both states), then the caller allowed: an owner's key may only cancel;
 * admin credentials and the app's reporter may make every legal change (and report progress while 执行中).
 */
export async function updateStatus(ctx: TasksContext, input: UpdateStatusInput): Promise<TaskRecord> {
  if (!isTaskStatus(input.status)) throw AppError.field(['body', 'status'], `status must be one of ${Object.values(TaskStatus).join(', ')}`, 'enum');
  const to = input.status;
  const reporter = await reporterApp(ctx, input.reporterToken);
  const task = await ctx.tasks.find(input.taskNumber);
  const reporting = !!reporter && task?.appId === reporter.id;
  if (!task || !(reporting || canSeeTask(input.actor, task))) throw taskNotFound(input.taskNumber);

  const privileged = reporting || !!input.actor?.isAdmin;
  const change: TaskChange = {
    ...(input.progress !== undefined && { progress: input.progress }),
    ...(input.result !== undefined && { result: input.result }),
    comments: input.comments ?? (to === TaskStatus.Cancelled ? (privileged ? 'cancelled by an administrator or the app' : 'cancelled by the owner') : undefined),
  };
  if (change.comments === undefined) delete change.comments;

  let current = task;
  for (let attempt = 1; ; attempt++) {
    assertAllowed(current, to, privileged);
    const updated = await ctx.tasks.transition(current.taskNumber, [current.status], to, { ...change, ...startedByHand(ctx, current, to) });
    if (updated) {
      if (isFinal(to)) {
        ctx.running.abort(current.taskNumber, 'cancelled');
        void ctx.admissions.settleTask(updated);
      }
      return updated;
    }
    // Changed meanwhile (a worker claimed it, its run ended): decided again against what it is now.
    const now = await ctx.tasks.find(current.taskNumber);
    if (!now || attempt === MAX_ATTEMPTS) {
      throw AppError.conflict(`illegal status transition: ${now?.status ?? current.status} → ${to} (the task kept changing meanwhile)`, { from: now?.status, to });
    }
    current = now;
  }
}

/**
 * A waiting task of Tollgate's own workers set to 执行中 by hand is run by no one: it gets a lease
 * no worker holds, so that once it runs out a worker claims the task and runs it (and its
 * admission is settled by that run), as with a worker that stopped heartbeating.
 */
function startedByHand(ctx: TasksContext, task: TaskRecord, to: TaskStatus): Pick<TaskChange, 'leaseUntil'> {
  if (task.mode !== 'async' || task.status !== TaskStatus.Waiting || to !== TaskStatus.Running) return {};
  return { leaseUntil: new Date(Date.now() + ctx.settings.leaseMs) };
}

/** How often a change is decided again when the task keeps changing under it. */
const MAX_ATTEMPTS = 3;

/** 409 for a sync run under way or an illegal transition; 403 for a key asking for more than a cancel. */
function assertAllowed(task: TaskRecord, to: TaskStatus, privileged: boolean): void {
  if (task.mode === 'sync' && task.status === TaskStatus.Running) {
    // Only a keyed sync run has a row while it runs; it ends (and is paid for what it delivered) when its caller's connection closes.
    throw AppError.conflict(`task ${task.taskNumber} is a synchronous run still under way: it ends when its connection closes`, { from: task.status, to });
  }
  assertTransition(task.status, to, privileged);
  if (!privileged && to !== TaskStatus.Cancelled) {
    throw AppError.forbidden("an API key may only cancel its own tasks (已取消); other changes need admin credentials or the app's reporter token");
  }
}
