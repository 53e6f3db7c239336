import type { Request, Response } from 'express';
import { AppError, FINAL_TASK_STATUSES, taskStatusSubject, type TaskStatus, type TaskStatusEvent } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import type { GatewayDeps } from '../deps';
import { rpcFor } from '../http/request-id';
import { taskJson } from '../routes/tasks-render';
import { openSse } from './sse-stream';

/** Task numbers are `T` + digits + hex; only such a token may become part of a bus subject. */
const SUBJECT_SAFE_TASK_NUMBER = /^[A-Za-z0-9_-]{1,64}$/;

const isFinal = (status: string) => FINAL_TASK_STATUSES.includes(status as TaskStatus);

/**
 * `event: status` for the task's current state, then one per change published on the bus
 * (`tasks.status.<task_number>`), ending after a final state (which carries task_result and comments).
 * The task is looked up first (anything that is not a task of the caller is a 404, and nothing is
 * subscribed for it); then the bus is watched before the state is read again, so no change between
 * the two is missed.
 */
export async function taskEvents(deps: GatewayDeps, actor: Actor, taskNumber: string, req: Request, res: Response): Promise<void> {
  if (!SUBJECT_SAFE_TASK_NUMBER.test(taskNumber)) throw AppError.notFound('task not found');
  await deps.upstreams.tasks.getTask({ actor, taskNumber }, rpcFor(res));
  const pending: TaskStatusEvent[] = [];
  let deliver: ((e: TaskStatusEvent) => void) | undefined;
  const watcher = await deps.bus.watch<TaskStatusEvent>(taskStatusSubject(taskNumber), (m) => (deliver ? deliver(m.data) : pending.push(m.data)));
  try {
    const task = await deps.upstreams.tasks.getTask({ actor, taskNumber }, rpcFor(res));
    // A few small events per task: they are not awaited (a client that reads nothing is still disconnected after the stall time).
    const sse = openSse(req, res, { stallMs: deps.config.SSE_STALL_TIMEOUT_MS });
    const snapshot = taskJson(task);
    void sse.send({ task_number: taskNumber, status: snapshot.status, task_progress: snapshot.task_progress, task_result: snapshot.task_result, comments: snapshot.comments, at: snapshot.updated_at }, 'status');
    if (isFinal(snapshot.status)) return sse.end();

    await new Promise<void>((resolve) => {
      sse.signal.addEventListener('abort', () => resolve(), { once: true });
      let ending = false;
      deliver = (e) => {
        if (ending || sse.closed || e.at <= snapshot.updated_at) return;
        if (!isFinal(e.status)) return void sse.send({ task_number: taskNumber, status: e.status, task_progress: e.task_progress ?? null, at: e.at }, 'status');
        ending = true;
        deps.upstreams.tasks
          .getTask({ actor, taskNumber })
          .then(
            (final) => sse.send({ task_number: taskNumber, status: final.status, task_progress: final.taskProgress ?? null, task_result: final.taskResult ?? null, comments: final.comments, at: e.at }, 'status'),
            () => sse.send({ task_number: taskNumber, status: e.status, task_progress: e.task_progress ?? null, at: e.at }, 'status'),
          )
          .finally(() => {
            sse.end();
            resolve();
          });
      };
      for (const e of pending.splice(0)) deliver(e);
    });
  } finally {
    await watcher.stop();
  }
}
