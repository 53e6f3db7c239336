import { baseCallParamsSchema, baseSettingsSchema, withConversation } from './common';
import { callModel, withSystemPrompt } from './model-call';
import type { ExecutionInput, ExecutionIO, ExecutionOutput, KindExecutor } from './types';

/** One model call: the app's system prompt, then the conversation, streamed when asked. */
export async function runChat(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput> {
  return callModel(input, io, { messages: withSystemPrompt(input.app.systemPrompt, input.request.messages), onDelta: io.onDelta });
}

/** A plain chat app: what a workflow without steps and an aiapp without a template do. */
export const chatExecutor: KindExecutor = {
  settingsSchema: baseSettingsSchema,
  callParamsSchema: baseCallParamsSchema,
  prepare: (app, request) => withConversation(request, app),
  run: runChat,
};
