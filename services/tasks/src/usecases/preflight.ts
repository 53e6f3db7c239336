import type { TasksContext } from '../context';
import type { CompletionJson, TaskRecord } from '../domain/types';
import { prepareExecution, type ExecuteInput } from './prepare-execution';
import { asyncReplay, syncReplay, type SubmitAnswer } from './replay';

export interface PreflightAnswer {
  replay: TaskRecord | null;
  completion?: CompletionJson;
  submission?: SubmitAnswer;
}

/**
 * Asked before admission so a repeated request is neither charged nor run again: the earlier answer,
 * a 409 for the same key with another body, or nothing (go ahead). Also runs the checks of a new
 * execution (app, parameters), so a request that would be refused is refused before it is admitted.
 */
export async function preflight(ctx: TasksContext, input: ExecuteInput): Promise<PreflightAnswer> {
  const prepared = await prepareExecution(ctx, input);
  const task = prepared.replay;
  if (!task) return { replay: null };
  if (input.mode === 'sync') return { replay: task, completion: syncReplay(task) };
  return { replay: task, submission: await asyncReplay(ctx, task) };
}
