import { z } from 'zod';
import { TASK_KINDS, TaskStatus } from '@tollgate/kit';
import { INT32_MAX } from '../http/form-numbers';
import { createdBound } from './task-dates';

const statuses = Object.values(TaskStatus) as [string, ...string[]];

/** Longest app_id (path or body) and task number a client may send (docs/tasks.md, "Input limits"). */
export const MAX_APP_ID_CHARS = 64;
export const MAX_TASK_NUMBER_CHARS = 64;
/** The body's api_key: a key is `ak-` + 32 characters; anything much longer is refused before it is looked at. */
export const MAX_BODY_API_KEY_CHARS = 64;

const appId = z.string().min(1).max(MAX_APP_ID_CHARS);
const taskNumber = z.string().min(1).max(MAX_TASK_NUMBER_CHARS);

export const messageSchema = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
});

/** The spec's execution request parameters. Unknown fields are ignored, as OpenAI-style clients send more. */
export const executeBody = z.object({
  messages: z.array(messageSchema).min(1),
  model: z.string().min(1).max(200).optional(),
  stream: z.boolean().default(false),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().max(INT32_MAX).optional(),
  app_id: z.string().max(MAX_APP_ID_CHARS).optional().describe('optional; when given it must equal the path app_id'),
  call_params: z.record(z.string(), z.unknown()).optional(),
});

/** An async submission may also name a `webhook` URL that receives the task's final state (docs/webhooks.md). */
export const executeAsyncBody = executeBody.extend({
  webhook: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe("http(s) URL that receives the task's final state (task.completed|failed|cancelled), signed with the account's default webhook secret; a loopback, private or cloud metadata address is refused (422), as for subscriptions"),
});

/**
 * The spec's second variant (`POST /v1/agent/`): any call_params object runs. The conversation is the
 * top-level `messages`, else call_params.messages, else call_params.query, else one user message built
 * from the call_params (the app's input_template, or `key: value` lines); see docs/tasks.md.
 */
export const agentVariantBody = z.object({
  app_id: appId,
  api_key: z.string().max(MAX_BODY_API_KEY_CHARS).optional().describe('used when there is no Authorization header; must match it when both are sent'),
  wait_response: z.boolean().default(true),
  call_params: z.record(z.string(), z.unknown()).default({}),
  messages: z.array(messageSchema).min(1).optional().describe('optional: the conversation, as on /sync'),
});

export const appPath = z.object({ app_id: appId });

/** The execution routes' optional Idempotency-Key header (docs/tasks.md). */
export const idempotencyHeader = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().describe('The same key with the same body answers the first run again (its task) instead of running twice; with another body: 409'),
});
export const taskPath = z.object({ task_number: taskNumber });

export const batchQueryBody = z.object({ task_numbers: z.array(taskNumber).min(1).max(100) });

export const listQueryBody = z.object({
  page: z.number().int().min(1).max(INT32_MAX).default(1),
  page_size: z.number().int().min(1).max(100).default(20),
  status: z.union([z.enum(statuses), z.array(z.enum(statuses)).min(1).max(statuses.length)]).optional().describe('one status or a list of 1–6; omitted: every status'),
  kind: z.enum(TASK_KINDS).optional(),
  app_id: appId.optional(),
  created_from: createdBound('from'),
  created_to: createdBound('to'),
});

export const statusUpdate = z.object({
  task_number: taskNumber,
  status: z.enum(statuses),
  task_progress: z.unknown().optional(),
  task_result: z.unknown().optional(),
  comments: z.string().max(10_000).optional(),
});
export const batchUpdateBody = z.object({ updates: z.array(statusUpdate).min(1).max(100) });

const usage = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });

export const completionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.object({ index: z.number().int(), message: z.object({ role: z.literal('assistant'), content: z.string() }), finish_reason: z.string() })),
  usage,
  task_number: z.string(),
  conversation_id: z.string().optional().describe('chatbot: the conversation this turn was added to (new when call_params.conversation_id was absent)'),
  tool_calls: z.array(z.record(z.string(), z.unknown())).optional().describe('agent: every tool call of the run (id, step, name, arguments, status, http_status, result, duration_ms)'),
  steps: z.unknown().optional().describe('agent: model calls made; workflow: every step output by name'),
});

export const submissionSchema = z.object({
  detail: z.string(),
  task_number: z.string(),
  status: z.string(),
  estimated_time: z.string(),
  conversation_id: z.string().optional().describe('chatbot: the conversation the task adds to'),
});

export const taskSchema = z.object({
  task_number: z.string(),
  status: z.string(),
  task_progress: z.unknown(),
  task_result: z.unknown(),
  comments: z.string(),
  kind: z.string(),
  app_id: z.string(),
  mode: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

export const taskEventSchema = z
  .object({ task_number: z.string(), status: z.string(), task_progress: z.unknown(), task_result: z.unknown().optional(), comments: z.string().optional(), at: z.string() })
  .describe('`event: status` with this as data; the first event is the current state, the stream ends after a final state');

const detail = z.object({ detail: z.string() });
const invalid = z.object({ detail: z.array(z.object({ loc: z.array(z.string()), msg: z.string(), type: z.string() })) });

/** The error responses every task route can give. */
export const taskErrors = {
  401: { description: 'Missing, malformed, unknown or expired API key', schema: detail },
  403: { description: 'Key or account state, permission or channel forbids this', schema: detail },
  422: { description: 'A parameter failed validation', schema: invalid },
  429: { description: 'Rate, concurrency or quota limit of the key (Retry-After says when to try again)', schema: detail },
};
