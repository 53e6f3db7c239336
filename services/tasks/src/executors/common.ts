import { AppError } from '@tollgate/kit';
import { z } from 'zod';
import type { AppRecord, ChatMessage, TaskRequest } from '../domain/types';
import { asText, placeholders, render } from './template';

export const messageSchema = z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.string() });

const echoDelay = z.number().int().min(0).max(10_000).optional();

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

/** call_params the service itself reads (the echo provider's knobs, the chatbot's conversation): never part of the prompt. */
const CONTROL_PARAMS = new Set(['echo_delay_ms', 'echo_error', 'conversation_id']);

/** call_params as `key: value` lines, in the order sent: strings verbatim, anything else as JSON; `{}` is the empty message. */
export function paramLines(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([key, value]) => !CONTROL_PARAMS.has(key) && value !== undefined)
    .map(([key, value]) => `${key}: ${asText(value)}`)
    .join('\n');
}

/** The app's input template filled from call_params; 422 naming every placeholder they leave empty, at body.call_params.<path>. */
function fromTemplate(template: string, params: Record<string, unknown>): string {
  const { text, missing } = render(template, params);
  if (missing.length === 0) return text;
  throw AppError.invalid(
    missing.map((path) => ({ loc: ['body', 'call_params', ...path.split('.')], msg: `missing template variable ${path}`, type: 'missing' })),
    `missing template variables: ${missing.join(', ')}`,
  );
}

/**
 * The request's conversation: `messages`, else `call_params.messages`, else `call_params.query` as one
 * user turn, else one user turn built from the call_params: by the app's `input_template` when it has
 * one, otherwise as `key: value` lines (see paramLines). Any call_params object runs, `{}` included.
 */
export function withConversation(request: TaskRequest, app: Pick<AppRecord, 'settings'>): TaskRequest {
  if (request.messages.length > 0) return request;
  const params = request.call_params;
  if (Array.isArray(params.messages)) return { ...request, messages: params.messages as ChatMessage[] };
  if (typeof params.query === 'string') return { ...request, messages: [{ role: 'user', content: params.query }] };
  const template = app.settings.input_template;
  const content = typeof template === 'string' ? fromTemplate(template, params) : paramLines(params);
  return { ...request, messages: [{ role: 'user', content }] };
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

/**
 * Settings every kind understands; kinds extend it. Unknown keys are kept for the kind to use.
 * `input_template` builds the user message of a request that sends no conversation (the
 * `/v1/agent/` variant) from its call_params (see withConversation).
 */
export const baseSettingsSchema = z.looseObject({ echo_delay_ms: echoDelay, input_template: templateString().optional() });
