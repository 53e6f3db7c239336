import { AppError } from '@tollgate/kit';
import type { TaskRequest } from '../domain/types';
import { runChat } from './chat';
import { baseCallParamsSchema, baseSettingsSchema, readSettings, templateString, withConversation } from './common';
import { callModel, lastUserText, withSystemPrompt } from './model-call';
import { render } from './template';
import type { ExecutionInput, ExecutionIO, ExecutionOutput, KindExecutor } from './types';

export const aiappSettingsSchema = baseSettingsSchema.extend({ template: templateString().optional() });

/** What `{{name}}` means in an aiapp template: the call_params, and `input` (the last user message) unless call_params has its own. */
const scopeOf = (request: TaskRequest) => ({ input: lastUserText(request.messages), ...request.call_params });

/** 422 naming every placeholder the call_params do not fill, at body.call_params.<path>. */
function checkFilled(template: string, request: TaskRequest): void {
  const { missing } = render(template, scopeOf(request));
  if (missing.length === 0) return;
  throw AppError.invalid(
    missing.map((path) => ({ loc: ['body', 'call_params', ...path.split('.')], msg: `missing template variable ${path}`, type: 'missing' })),
    `missing template variables: ${missing.join(', ')}`,
  );
}

/**
 * A prompt template filled from call_params, one model call: the system prompt, the request's turns
 * before its last user message, then the filled template as the user turn. Without a template it is a
 * plain chat call.
 */
async function runAiapp(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput> {
  const { template } = readSettings(aiappSettingsSchema, input.app.settings);
  if (template === undefined) return runChat(input, io);
  const { messages } = input.request;
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const before = lastUser >= 0 ? messages.slice(0, lastUser) : messages;
  const prompt = render(template, scopeOf(input.request)).text;
  return callModel(input, io, { messages: withSystemPrompt(input.app.systemPrompt, [...before, { role: 'user', content: prompt }]), onDelta: io.onDelta });
}

export const aiappExecutor: KindExecutor = {
  settingsSchema: aiappSettingsSchema,
  callParamsSchema: baseCallParamsSchema,
  prepare(app, request) {
    const prepared = withConversation(request, app);
    const { template } = readSettings(aiappSettingsSchema, app.settings);
    if (template !== undefined) checkFilled(template, prepared);
    return prepared;
  },
  run: runAiapp,
};
