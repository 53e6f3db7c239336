import type { Completion, CompletionChunk, SubmitResponse } from '@tollgate/protos/tasks';

const usageJson = (u: Completion['usage']) => ({ prompt_tokens: u?.promptTokens ?? 0, completion_tokens: u?.completionTokens ?? 0, total_tokens: u?.totalTokens ?? 0 });

/** A kind's own fields (conversation_id, tool_calls, steps), rendered after the spec's. */
const extraJson = (extra: Record<string, unknown> | undefined) => extra ?? {};

/** The spec's completion response, plus the task number that recorded it and the kind's own fields. */
export const completionJson = (c: Completion) => ({
  id: c.id,
  object: 'chat.completion' as const,
  created: c.created,
  model: c.model,
  choices: c.choices.map((ch) => ({ index: ch.index, message: { role: 'assistant' as const, content: ch.message?.content ?? '' }, finish_reason: ch.finishReason })),
  usage: usageJson(c.usage),
  task_number: c.taskNumber,
  ...extraJson(c.extra),
});

/** The spec's stream chunk: `delta.content` fragments, `finish_reason` null until the last one. */
export const chunkJson = (c: CompletionChunk) => ({
  id: c.id,
  object: 'chat.completion.chunk' as const,
  created: c.created,
  model: c.model,
  choices: c.choices.map((ch) => ({
    index: ch.index,
    delta: ch.finishReason ? {} : { ...(ch.delta?.role && { role: ch.delta.role }), content: ch.delta?.content ?? '' },
    finish_reason: ch.finishReason || null,
  })),
  ...(c.usage && { usage: usageJson(c.usage) }),
  ...extraJson(c.extra),
});

export const submissionJson = (s: SubmitResponse) => ({ detail: s.detail, task_number: s.taskNumber, status: s.status, estimated_time: s.estimatedTime, ...extraJson(s.extra) });

/** The task as the API returns it (one renderer, shared with webhook deliveries). */
export { taskJson } from '@tollgate/kit';
