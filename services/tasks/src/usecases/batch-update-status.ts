import { AppError, isAppError } from '@tollgate/kit';
import type { TasksContext } from '../context';
import type { TaskRecord } from '../domain/types';
import { updateStatus, type UpdateStatusInput } from './update-status';

export const MAX_BATCH_UPDATES = 100;

export type BatchItemResult = { taskNumber: string; ok: true; task: TaskRecord } | { taskNumber: string; ok: false; code: string; detail: string };

/** Each change on its own (one failing does not undo the others), in the order given. */
export async function batchUpdateStatus(ctx: TasksContext, updates: UpdateStatusInput[]): Promise<BatchItemResult[]> {
  if (updates.length === 0 || updates.length > MAX_BATCH_UPDATES) {
    throw AppError.field(['body', 'updates'], `between 1 and ${MAX_BATCH_UPDATES} updates`, 'size');
  }
  const results: BatchItemResult[] = [];
  for (const update of updates) {
    try {
      results.push({ taskNumber: update.taskNumber, ok: true, task: await updateStatus(ctx, update) });
    } catch (err) {
      if (!isAppError(err)) throw err;
      results.push({ taskNumber: update.taskNumber, ok: false, code: err.code, detail: err.message });
    }
  }
  return results;
}
