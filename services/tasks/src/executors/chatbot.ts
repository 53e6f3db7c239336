import { randomBytes } from 'node:crypto';
import { AppError } from '@tollgate/kit';
import { z } from 'zod';
import type { AppRecord } from '../domain/types';
import { baseCallParamsSchema, baseSettingsSchema, readSettings, withConversation } from './common';
import { callModel, withSystemPrompt } from './model-call';
import type { ExecutionInput, ExecutionIO, ExecutionOutput, KindExecutor } from './types';

export const DEFAULT_HISTORY_WINDOW = 20;

export const chatbotSettingsSchema = baseSettingsSchema.extend({
  /** Stored turns (user and assistant messages, not exchanges) sent to the model before the new ones. */
  history_window: z.number().int().min(0).max(500).optional(),
});

const callParamsSchema = baseCallParamsSchema.extend({
  conversation_id: z.string().min(1).max(100).optional(),
});

const newConversationId = () => `conv_${randomBytes(12).toString('hex')}`;

const notFound = (id: string) => AppError.notFound(`conversation ${id} not found`);

const belongs = (c: { accountId: number; appId: string }, accountId: number, app: AppRecord) => c.accountId === accountId && c.appId === app.id;

/**
 * Chat with server-side history: `call_params.conversation_id` names the conversation (a new one is
 * made when it is absent and returned as `conversation_id`); the model sees the system prompt, the last
 * `history_window` stored turns, then the request's messages. A completed run stores the request's
 * user/assistant turns and the answer. A conversation is its account's and its app's: any other id is a 404.
 */
async function runChatbot(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput> {
  const { app, request } = input;
  const settings = readSettings(chatbotSettingsSchema, app.settings);
  const id = String(request.call_params.conversation_id);
  const conversation = await io.conversations.ensure({ id, accountId: input.accountId, appId: app.id });
  if (!belongs(conversation, input.accountId, app)) throw notFound(id);
  const history = await io.conversations.history(id, settings.history_window ?? DEFAULT_HISTORY_WINDOW);
  const reply = await callModel(input, io, { messages: withSystemPrompt(app.systemPrompt, [...history, ...request.messages]), onDelta: io.onDelta });
  io.signal.throwIfAborted();
  const turns = request.messages.filter((m) => m.role !== 'system');
  await io.conversations.append(id, input.taskNumber, [...turns, { role: 'assistant', content: reply.content }]);
  return { ...reply, extra: { conversation_id: id } };
}

export const chatbotExecutor: KindExecutor = {
  settingsSchema: chatbotSettingsSchema,
  callParamsSchema,

  async prepare(app, request, env) {
    const prepared = withConversation(request, app);
    const id = prepared.call_params.conversation_id;
    if (typeof id !== 'string') return { ...prepared, call_params: { ...prepared.call_params, conversation_id: newConversationId() } };
    const conversation = await env.conversations.find(id);
    if (!conversation || !belongs(conversation, env.actor.accountId, app)) throw notFound(id);
    return prepared;
  },

  announce: (request) => (typeof request.call_params.conversation_id === 'string' ? { conversation_id: request.call_params.conversation_id } : {}),
  run: runChatbot,
};
