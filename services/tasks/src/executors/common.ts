import { z } from 'zod';

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
