import { FINAL_TASK_STATUSES, TaskStatus, isAppError, ErrorCode, type Logger, type TaskStatusEvent } from '@tollgate/kit';
import type { AdmissionRepo } from '../repo/admission-repo';
import { settle } from './settle';

/**
 * Settles from a task's final status: 已完成 → charge (tokens and duration from the event),
 * 已报错 and 已取消 → refund. Idempotent with the direct Settle call: whichever comes first wins.
 */
export async function settleFromEvent(deps: { admissions: AdmissionRepo; log: Logger }, event: TaskStatusEvent): Promise<void> {
  if (!event?.task_number || !FINAL_TASK_STATUSES.includes(event.status)) return;
  const outcome = event.status === TaskStatus.Completed ? 'charge' : 'refund';
  const seconds = event.duration_ms && event.duration_ms > 0 ? (event.duration_ms / 1000).toFixed(3) : '';
  try {
    const result = await settle(deps, {
      taskNumber: event.task_number,
      outcome,
      units: { inputTokens: event.usage?.prompt_tokens ?? 0, outputTokens: event.usage?.completion_tokens ?? 0, seconds },
    });
    deps.log.debug({ taskNumber: event.task_number, ...result }, 'settled from task status');
  } catch (err) {
    if (isAppError(err) && err.code === ErrorCode.NotFound) return void deps.log.debug({ taskNumber: event.task_number }, 'task status for a task billing never admitted');
    throw err;
  }
}
