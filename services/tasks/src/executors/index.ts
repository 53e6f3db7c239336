import { AppError, TASK_KINDS, type TaskKind } from '@tollgate/kit';
import { zodIssues } from '@tollgate/kit';
import type { AppRecord, TaskRequest } from '../domain/types';
import { agentExecutor } from './agent';
import { aiappExecutor } from './aiapp';
import { chatbotExecutor } from './chatbot';
import type { KindExecutor, PrepareEnv } from './types';
import { workflowExecutor } from './workflow';

const EXECUTORS: Record<TaskKind, KindExecutor> = {
  agent: agentExecutor,
  workflow: workflowExecutor,
  aiapp: aiappExecutor,
  chatbot: chatbotExecutor,
};

export const isKind = (kind: string): kind is TaskKind => (TASK_KINDS as readonly string[]).includes(kind);

export function executorFor(kind: string): KindExecutor {
  if (!isKind(kind)) throw AppError.field(['path', 'kind'], `kind must be one of ${TASK_KINDS.join(', ')}`, 'enum');
  return EXECUTORS[kind];
}

/** The app's settings checked against its kind's schema (422 at body.settings.<field>). */
export function validateSettings(kind: string, settings: Record<string, unknown>): Record<string, unknown> {
  const result = executorFor(kind).settingsSchema.safeParse(settings);
  if (!result.success) throw AppError.invalid(zodIssues(result.error, ['body', 'settings']));
  return result.data;
}

/** The request checked against the app's kind (call_params schema, then the kind's own checks). */
export async function prepareRequest(app: AppRecord, request: TaskRequest, env: PrepareEnv): Promise<TaskRequest> {
  const executor = executorFor(app.kind);
  const params = executor.callParamsSchema.safeParse(request.call_params);
  if (!params.success) throw AppError.invalid(zodIssues(params.error, ['body', 'call_params']));
  return executor.prepare(app, { ...request, call_params: params.data }, env);
}

/** What the client learns of a prepared request before its answer (e.g. a chatbot's conversation_id). */
export const announced = (app: AppRecord, request: TaskRequest): Record<string, unknown> => executorFor(app.kind).announce?.(request) ?? {};

export type { KindExecutor, ExecutionIO, ExecutionInput, ExecutionOutput, PrepareEnv } from './types';
