import { AppError } from '@tollgate/kit';
import type { ChatMessage } from '../domain/types';
import { baseCallParamsSchema, baseSettingsSchema } from './common';
import type { KindExecutor } from './types';

/**
 * One model call: the app's system prompt, then the conversation. The four kinds run this until
 * their own behaviour (tools, history, templates, steps) replaces it.
 */
export const chatExecutor: KindExecutor = {
  settingsSchema: baseSettingsSchema,
  callParamsSchema: baseCallParamsSchema,

  prepare(_app, request) {
    if (request.messages.length > 0) return request;
    const params = request.call_params;
    const messages = (params.messages as ChatMessage[] | undefined) ?? (typeof params.query === 'string' ? [{ role: 'user' as const, content: params.query }] : []);
    if (messages.length === 0) {
      throw AppError.field(['body', 'messages'], 'messages is required (or call_params.messages / call_params.query)', 'missing');
    }
    return { ...request, messages };
  },

  async run({ app, request }, io) {
    const messages: ChatMessage[] = app.systemPrompt ? [{ role: 'system', content: app.systemPrompt }, ...request.messages] : request.messages;
    const reply = await io.provider.chat(
      { model: request.model || app.model, messages, temperature: request.temperature, maxTokens: request.max_tokens, callParams: request.call_params, settings: app.settings },
      { signal: io.signal, timeoutMs: io.timeoutMs, onDelta: io.onDelta },
    );
    return reply;
  },
};
