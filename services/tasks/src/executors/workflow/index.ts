import { AppError } from '@tollgate/kit';
import type { Usage } from '../../domain/types';
import { runChat } from '../chat';
import { baseCallParamsSchema, readSettings, withConversation } from '../common';
import { addUsage, lastUserText, noUsage } from '../model-call';
import { asText, lookup } from '../template';
import type { ExecutionInput, ExecutionIO, ExecutionOutput, KindExecutor } from '../types';
import { callParamPaths, workflowSettingsSchema } from './settings';
import { runStep, type Scope } from './steps';

/**
 * The app's steps in order, each output stored under its name for the later ones; the answer is the
 * last step's output. `task_progress` is `{steps_done, steps_total, current_step}`. A streamed run
 * streams the last step as it is produced when it is a model step, else sends its output in one piece.
 * Without steps it is a plain chat call.
 */
async function runWorkflow(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput> {
  const { steps } = readSettings(workflowSettingsSchema, input.app.settings);
  if (!steps) return runChat(input, io);
  const scope: Scope = { input: lastUserText(input.request.messages), call_params: input.request.call_params, steps: {} };
  let usage: Usage = noUsage();
  let model = input.request.model || input.app.model;
  let streamed = false;
  for (const [i, step] of steps.entries()) {
    await io.reportProgress({ steps_done: i, steps_total: steps.length, current_step: step.output });
    const last = i === steps.length - 1;
    const result = await runStep(step, scope, input, io, last ? io.onDelta : undefined);
    scope.steps[step.output] = result.value;
    if (result.usage) usage = addUsage(usage, result.usage);
    if (result.model) model = result.model;
    streamed = !!result.streamed;
  }
  await io.reportProgress({ steps_done: steps.length, steps_total: steps.length, current_step: null });
  const content = asText(scope.steps[steps.at(-1)!.output]);
  if (io.onDelta && !streamed) await io.onDelta(content);
  return { content, model, finishReason: 'stop', usage, extra: { steps: scope.steps } };
}

export const workflowExecutor: KindExecutor = {
  settingsSchema: workflowSettingsSchema,
  callParamsSchema: baseCallParamsSchema,
  prepare(app, request) {
    const prepared = withConversation(request, app);
    const { steps } = readSettings(workflowSettingsSchema, app.settings);
    const missing = callParamPaths(steps ?? []).filter((path) => lookup(prepared.call_params, path) === undefined);
    if (missing.length > 0) {
      throw AppError.invalid(
        missing.map((path) => ({ loc: ['body', 'call_params', ...path.split('.')], msg: `missing workflow variable call_params.${path}`, type: 'missing' })),
        `missing workflow variables: ${missing.map((p) => `call_params.${p}`).join(', ')}`,
      );
    }
    return prepared;
  },
  run: runWorkflow,
};
