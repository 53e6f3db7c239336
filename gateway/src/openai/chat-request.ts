import { z } from 'zod';
import type { Execution } from '../routes/tasks-execute';

const textPart = z.object({ type: z.literal('text', 'only text content parts are supported'), text: z.string() });

/** OpenAI's message: `developer` is read as `system`; content is a string or text parts (joined), `null` only for an assistant. */
const chatMessage = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant']),
    content: z.union([z.string(), z.array(textPart), z.null()]),
  })
  .refine((m) => m.content !== null || m.role === 'assistant', { message: 'content may be null only for an assistant message', path: ['content'] });

/**
 * The OpenAI chat-completions request as the official SDKs send it. Fields the product has no use
 * for (`user`, `stream_options`, `top_p`, …) are accepted and ignored; `call_params` may be sent as an
 * extra body field, as on `/sync`.
 */
export const chatCompletionBody = z.object({
  model: z.string().min(1).max(200),
  messages: z.array(chatMessage).min(1),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish().describe('the newer name of max_tokens; max_tokens wins when both are sent'),
  n: z.literal(1, 'only n = 1 is supported').nullish(),
  call_params: z.record(z.string(), z.unknown()).optional(),
});
export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;

/** The same body where `model` may be left out (the per-app route, whose path names the app). */
export const appChatCompletionBody = chatCompletionBody.extend({
  model: chatCompletionBody.shape.model.optional().describe('a model override for the app, as on /sync; `<kind>/<app_id>` or `<app_id>` of this app means the app’s own model'),
});

const textOf = (content: ChatCompletionBody['messages'][number]['content']): string =>
  content === null ? '' : typeof content === 'string' ? content : content.map((p) => p.text).join('');

/** The Execution the spec's `/sync` route would build from the same request. */
export function toExecution(body: Omit<ChatCompletionBody, 'model'>, target: { kind: string; appId: string; model?: string; idempotencyKey: string }): Execution {
  const maxTokens = body.max_tokens ?? body.max_completion_tokens ?? undefined;
  return {
    kind: target.kind,
    appId: target.appId,
    messages: body.messages.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: textOf(m.content) })),
    ...(target.model !== undefined && { model: target.model }),
    ...(body.temperature != null && { temperature: body.temperature }),
    ...(maxTokens !== undefined && { max_tokens: maxTokens }),
    ...(body.call_params !== undefined && { call_params: body.call_params }),
    stream: body.stream === true,
    idempotencyKey: target.idempotencyKey,
  };
}
