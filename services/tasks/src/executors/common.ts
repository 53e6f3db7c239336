import { AppError } from '@tollgate/kit';
import { z } from 'zod';
import type { ChatMessage, TaskRequest } from '../domain/types';
import { placeholders } from './template';

export const messageSchema = z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.string() });

const echoDelay = z.number().int().min(0).max(10_000).optional();

/** Settings every kind understands; kinds extend it. Unknown keys are kept for the kind to use. */
export const baseSettingsSchema = z.looseObject({ echo_delay_ms: echoDelay });

/**
 * call_params every kind understands: the echo provider's knobs and, for the `/v1/agent/` variant
 * that sends no `messages`, the conversation (`messages`) or a single user turn (`query`).
 */
export const baseCallParamsSchema = z.looseObject({
  echo_delay_ms: echoDelay,
  echo_error: z.string().max(500).optional(),
  query: z.string().optional(),
  messages: z.array(messageSchema).min(1).optional(),
});

/** The request's conversation: `messages`, else `call_params.messages`, else `call_params.query` as one user turn (422 when none). */
export function withConversation(request: TaskRequest): TaskRequest {
  if (request.messages.length > 0) return request;
  const params = request.call_params;
  const messages = (params.messages as ChatMessage[] | undefined) ?? (typeof params.query === 'string' ? [{ role: 'user' as const, content: params.query }] : []);
  if (messages.length === 0) {
    throw AppError.field(['body', 'messages'], 'messages is required (or call_params.messages / call_params.query)', 'missing');
  }
  return { ...request, messages };
}

/** An app's stored settings read with its kind's schema (they were checked when stored; this also types them). */
export function readSettings<T>(schema: z.ZodType<T>, settings: Record<string, unknown>): T {
  const result = schema.safeParse(settings);
  if (!result.success) throw new AppError('FAILED_PRECONDITION', `the app's settings are no longer valid: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return result.data;
}

/** A template's placeholders must parse; issue at settings.<field>. */
export const templateString = (max = 100_000) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((text, ctx) => {
      try {
        placeholders(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    });
