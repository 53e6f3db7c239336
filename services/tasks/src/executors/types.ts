import type { z } from 'zod';
import type { AppRecord, TaskRequest, Usage } from '../domain/types';
import type { ChatProvider } from '../providers';

export interface ExecutionInput {
  app: AppRecord;
  request: TaskRequest;
  taskNumber: string;
  accountId: number;
}

export interface ExecutionIO {
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

export interface ExecutionOutput {
  content: string;
  model: string;
  finishReason: string;
  usage: Usage;
}

/** How one kind of app runs: its settings, its call_params, and the work itself. */
export interface KindExecutor {
  settingsSchema: z.ZodType<Record<string, unknown>>;
  callParamsSchema: z.ZodType<Record<string, unknown>>;
  /** Checks and completes a request before its task exists; throws 422 AppErrors with body locs. */
  prepare(app: AppRecord, request: TaskRequest): TaskRequest;
  run(input: ExecutionInput, io: ExecutionIO): Promise<ExecutionOutput>;
}
