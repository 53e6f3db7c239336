import type { App, Completion, CompletionChunk, ExecuteRequest, SubmitResponse, Task } from '@tollgate/protos/tasks';
import type { Actor as ActorMsg } from '@tollgate/protos/common';
import type { Actor, AppRecord, ChatMessage, CompletionJson, TaskRecord } from './domain/types';
import type { ExecuteInput } from './usecases/prepare-execution';
import type { SubmitAnswer } from './usecases/replay';

const iso = (d: Date | null) => (d ? d.toISOString() : '');

export const decodeActor = (a: ActorMsg | undefined): Actor | undefined => (a ? { accountId: a.accountId, isAdmin: a.isAdmin, apiKeyId: a.apiKeyId } : undefined);

export function decodeExecute(req: ExecuteRequest, mode: 'sync' | 'async'): ExecuteInput {
  return {
    actor: decodeActor(req.actor) ?? { accountId: 0, isAdmin: false, apiKeyId: 0 },
    kind: req.kind,
    appId: req.appId,
    request: {
      messages: req.messages.map((m) => ({ role: m.role, content: m.content }) as ChatMessage),
      model: req.model || undefined,
      temperature: req.temperature,
      max_tokens: req.maxTokens,
      call_params: req.callParams ?? {},
      stream: req.stream,
      ...(req.webhook && { webhook: req.webhook }),
    },
    idempotencyKey: req.idempotencyKey,
    taskNumber: '',
    mode,
    payer: req.payer,
  };
}

export function encodeApp(app: AppRecord, reporterToken = ''): App {
  return {
    appId: app.id,
    kind: app.kind,
    name: app.name,
    ownerAccountId: app.ownerAccountId ?? 0,
    provider: app.provider,
    model: app.model,
    systemPrompt: app.systemPrompt,
    settings: app.settings,
    public: app.public,
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.updatedAt),
    baseUrl: app.baseUrl,
    apiKey: '',
    hasApiKey: app.apiKey !== '',
    timeoutMs: app.timeoutMs,
    reporterToken,
  };
}

export function encodeTask(task: TaskRecord): Task {
  return {
    taskNumber: task.taskNumber,
    status: task.status,
    taskProgress: task.progress ?? null,
    taskResult: task.result ?? null,
    comments: task.comments,
    kind: task.kind,
    appId: task.appId,
    accountId: task.accountId,
    apiKeyId: task.apiKeyId,
    createdAt: iso(task.createdAt),
    updatedAt: iso(task.updatedAt),
    startedAt: iso(task.startedAt),
    finishedAt: iso(task.finishedAt),
    mode: task.mode,
    attempts: task.attempts,
  };
}

/** The completion's own fields beyond the spec's (a kind's `conversation_id`, `tool_calls`, `steps`). */
export function completionExtra(c: CompletionJson): Record<string, unknown> | undefined {
  const { id: _id, object: _object, created: _created, model: _model, choices: _choices, usage: _usage, ...extra } = c;
  return Object.keys(extra).length > 0 ? extra : undefined;
}

export function encodeCompletion(c: CompletionJson, taskNumber: string, replayed: boolean): Completion {
  return {
    id: c.id,
    object: c.object,
    created: c.created,
    model: c.model,
    choices: c.choices.map((ch) => ({ index: ch.index, message: ch.message, finishReason: ch.finish_reason })),
    usage: { promptTokens: c.usage.prompt_tokens, completionTokens: c.usage.completion_tokens, totalTokens: c.usage.total_tokens },
    taskNumber,
    extra: completionExtra(c),
    replayed,
  };
}

export const encodeSubmit = (s: SubmitAnswer): SubmitResponse => ({
  detail: s.detail,
  taskNumber: s.task_number,
  status: s.status,
  estimatedTime: s.estimated_time,
  replayed: s.replayed,
  extra: Object.keys(s.extra).length > 0 ? s.extra : undefined,
});

/** A chunk of a streamed run; `finishReason` and `usage` only on the last one; `extra` on the first and the last. */
export function chunk(
  head: { id: string; created: number; model: string; taskNumber: string },
  delta: { role?: string; content?: string },
  last?: Pick<CompletionJson, 'usage'> & { finishReason: string },
  replayed = false,
  extra?: Record<string, unknown>,
): CompletionChunk {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta: { role: delta.role ?? '', content: delta.content ?? '' }, finishReason: last?.finishReason ?? '' }],
    usage: last ? { promptTokens: last.usage.prompt_tokens, completionTokens: last.usage.completion_tokens, totalTokens: last.usage.total_tokens } : undefined,
    taskNumber: head.taskNumber,
    replayed,
    extra: extra && Object.keys(extra).length > 0 ? extra : undefined,
  };
}
