import { TaskStatus } from '@tollgate/kit';
import { MAX_TOKEN_COUNT, type TaskRecord } from './types';

export interface Settlement {
  taskNumber: string;
  outcome: 'charge' | 'refund';
  units: { inputTokens: number; outputTokens: number; seconds: string };
}

const NOTHING = { inputTokens: 0, outputTokens: 0, seconds: '' };
/** A count billing accepts (a task stored before upstream usage was checked may hold anything). */
const billable = (tokens: unknown): number => (typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? Math.min(tokens, MAX_TOKEN_COUNT) : 0);

/**
 * How a task's admission is settled, from its final state alone: 已完成 is charged by its usage and
 * duration; 已取消 with a recorded usage (a streamed answer the client left after content was
 * delivered) is charged by that usage; everything else (已报错, 已取消 before any content) is refunded.
 */
export function settlementOf(task: TaskRecord): Settlement {
  const charged = task.status === TaskStatus.Completed || (task.status === TaskStatus.Cancelled && task.usage !== null);
  if (!charged) return { taskNumber: task.taskNumber, outcome: 'refund', units: NOTHING };
  const ms = task.startedAt && task.finishedAt ? task.finishedAt.getTime() - task.startedAt.getTime() : 0;
  return {
    taskNumber: task.taskNumber,
    outcome: 'charge',
    units: { inputTokens: billable(task.usage?.prompt_tokens), outputTokens: billable(task.usage?.completion_tokens), seconds: ms > 0 ? (ms / 1000).toFixed(3) : '' },
  };
}

/** The refund of an admission whose task never came to exist. */
export const refundOf = (taskNumber: string): Settlement => ({ taskNumber, outcome: 'refund', units: NOTHING });
