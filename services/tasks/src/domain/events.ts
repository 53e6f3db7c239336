import { taskStatusSubject, type TaskStatusEvent } from '@tollgate/kit';
import { isFinal } from './status';
import type { TaskRecord } from './types';

/** The `tasks.status.<task_number>` event of a task's current state (billing settles from the final ones). */
export function statusEvent(task: TaskRecord): { subject: string; payload: TaskStatusEvent } {
  const final = isFinal(task.status);
  const payload: TaskStatusEvent = {
    task_number: task.taskNumber,
    status: task.status,
    kind: task.kind,
    app_id: task.appId,
    account_id: task.accountId,
    api_key_id: task.apiKeyId,
    ...(task.progress !== null && { task_progress: task.progress }),
    at: task.updatedAt.toISOString(),
    ...(final && task.usage && { usage: task.usage }),
    ...(final && task.startedAt && task.finishedAt && { duration_ms: task.finishedAt.getTime() - task.startedAt.getTime() }),
    ...(final && !task.startedAt && { never_ran: true }),
    ...(final && { webhook: typeof task.request.webhook === 'string' }),
  };
  return { subject: taskStatusSubject(task.taskNumber), payload };
}
