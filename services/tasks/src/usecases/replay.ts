import { AppError, TaskStatus } from '@tollgate/kit';
import type { TasksContext } from '../context';
import type { CompletionJson, TaskRecord } from '../domain/types';
import { executorFor } from '../executors';
import { estimateTime } from './estimate-time';

export interface SubmitAnswer {
  detail: string;
  task_number: string;
  status: string;
  estimated_time: string;
  replayed: boolean;
  /** What the kind tells the client at once (a chatbot's conversation_id). */
  extra: Record<string, unknown>;
}

/** A sync request repeated with its Idempotency-Key: the first run's answer, or why there is none. */
export function syncReplay(task: TaskRecord): CompletionJson {
  const details = { task_number: task.taskNumber };
  switch (task.status) {
    case TaskStatus.Completed:
      return task.result as CompletionJson;
    case TaskStatus.Failed:
      throw new AppError('UNAVAILABLE', task.comments || 'the earlier request with this Idempotency-Key failed', details);
    case TaskStatus.Cancelled:
      throw AppError.conflict('the earlier request with this Idempotency-Key was cancelled', details);
    default:
      throw AppError.conflict('the earlier request with this Idempotency-Key is still running', details);
  }
}

export async function asyncReplay(ctx: TasksContext, task: TaskRecord): Promise<SubmitAnswer> {
  return {
    detail: 'already submitted with this Idempotency-Key',
    task_number: task.taskNumber,
    status: task.status,
    estimated_time: task.status === TaskStatus.Waiting ? await estimateTime(ctx, task.appId, task.mode) : '0 seconds',
    replayed: true,
    extra: executorFor(task.kind).announce?.(task.request) ?? {},
  };
}
