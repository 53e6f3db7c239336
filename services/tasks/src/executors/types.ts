import type { z } from 'zod';
import type { Actor, AppRecord, TaskRequest, Usage } from '../domain/types';
import type { ChatProvider } from '../providers';
import type { ConversationRepo } from '../repo/conversation-repo';

export interface ExecutionInput {
  app: AppRecord;
  request: TaskRequest;
  taskNumber: string;
  accountId: number;
}

/** What a kind may use besides the model: the conversations store (chatbot). */
export interface KindServices {
  conversations: ConversationRepo;
}

export interface ExecutionIO extends KindServices {
  provider: ChatProvider;
  /** Aborted when the task must stop (cancelled, client gone, lease lost, shutdown). */
  signal: AbortSignal;
  /** Budget of each upstream model call. */
  timeoutMs: number;
  /** Set for a streamed sync run: fragments of the final answer, as produced. */
  onDelta?: (text: string) => Promise<void>;
  /** Stores `task_progress` and publishes it (status stays 执行中). */
  reportProgress(progress: unknown): Promise<void>;
}

export interface PrepareEnv extends KindServices {
  actor: Actor;
}

export interface ExecutionOutput {
  content: string;
  model: string;
  finishReason: string;
  usage: Usage;
  /** The kind's own fields, added to the completion next to the spec's (`tool_calls`, `conversation_id`, `steps`). */
  extra?: Record<string, unknown>;
}

/** How one kind of app runs: its settings, its call_params, and the work itself. */
export interface KindExecutor {
  settingsSchema: z.ZodType<Record<string, unknown>>;
  callParamsSchema: z.ZodType<Record<string, unknown>>;
  /** Checks and completes a request before its task exists; throws 422 (body locs) or 404 AppErrors. */
  prepare(app: AppRecord, request: TaskRequest, env: PrepareEnv): TaskRequest | Promise<TaskRequest>;
  /** Fields of a prepared request the client gets before the answer: on the async submission and the first stream chunk. */
  announce?(request: TaskRequest): Record<string, unknown>;
  run(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput>;
}
