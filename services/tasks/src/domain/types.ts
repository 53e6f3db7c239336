import type { TaskStatus } from '@tollgate/kit';

export type Role = 'user' | 'assistant' | 'system' | 'tool';

/** A function call the model asked for (OpenAI `tool_calls` item); `arguments` is the model's JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A chat message. Callers send user/assistant/system turns; an agent's loop adds the assistant turns
 * that ask for tools (`tool_calls`) and the `tool` turns answering them (`tool_call_id`).
 */
export interface ChatMessage {
  role: Role;
  content: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Largest token count taken as a count (32 bits, as the execution APIs accept for max_tokens). */
export const MAX_TOKEN_COUNT = 2_147_483_647;

/** A token count billing accepts: whole, non-negative, at most MAX_TOKEN_COUNT. */
export const isTokenCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKEN_COUNT;

export interface Actor {
  accountId: number;
  isAdmin: boolean;
  apiKeyId: number;
}

export type ExecutionMode = 'sync' | 'async' | 'external';

/** What a task was asked to do, as stored in its `request` column. */
export interface TaskRequest {
  messages: ChatMessage[];
  model?: string;
  temperature?: number;
  max_tokens?: number;
  call_params: Record<string, unknown>;
  stream: boolean;
  /** Where the final state is delivered (docs/webhooks.md). */
  webhook?: string;
}

/** The spec's completion response (`chat.completion`). */
export interface CompletionJson {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: { role: 'assistant'; content: string }; finish_reason: string }>;
  usage: Usage;
  /** A kind's own fields next to the spec's (`conversation_id`, `tool_calls`, `steps`). */
  [extra: string]: unknown;
}

export interface TaskRecord {
  taskNumber: string;
  appId: string;
  kind: string;
  accountId: number;
  apiKeyId: number;
  status: TaskStatus;
  mode: ExecutionMode;
  request: TaskRequest;
  progress: unknown;
  result: unknown;
  comments: string;
  usage: Usage | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  leaseOwner: string | null;
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export type ProviderName = 'echo' | 'openai-compatible' | 'external';

export interface AppRecord {
  id: string;
  kind: string;
  name: string;
  ownerAccountId: number | null;
  provider: ProviderName;
  model: string;
  systemPrompt: string;
  settings: Record<string, unknown>;
  public: boolean;
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  reporterTokenHash: string | null;
  createdAt: Date;
  updatedAt: Date;
}
