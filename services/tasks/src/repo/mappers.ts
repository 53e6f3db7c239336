import type { TaskStatus } from '@tollgate/kit';
import type { AppRecord, ExecutionMode, ProviderName, TaskRecord, TaskRequest, Usage } from '../domain/types';
import type { AppRow, TaskRow } from './prisma-types';
import type { TaskSqlRow } from './task-sql';

export function toTask(row: TaskRow): TaskRecord {
  return {
    taskNumber: row.taskNumber,
    appId: row.appId,
    kind: row.kind,
    accountId: row.accountId,
    apiKeyId: row.apiKeyId,
    status: row.status as TaskStatus,
    mode: row.mode as ExecutionMode,
    request: row.request as unknown as TaskRequest,
    progress: row.progress ?? null,
    result: row.result ?? null,
    comments: row.comments,
    usage: (row.usage as unknown as Usage | null) ?? null,
    idempotencyKey: row.idempotencyKey,
    requestHash: row.requestHash,
    leaseOwner: row.leaseOwner,
    attempts: row.attempts,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export function toApp(row: AppRow): AppRecord {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    ownerAccountId: row.ownerAccountId,
    provider: row.provider as ProviderName,
    model: row.model,
    systemPrompt: row.systemPrompt,
    settings: (row.settings as Record<string, unknown>) ?? {},
    public: row.public,
    baseUrl: row.baseUrl,
    apiKey: row.apiKey,
    timeoutMs: row.timeoutMs,
    reporterTokenHash: row.reporterTokenHash,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function toTaskFromSql(r: TaskSqlRow): TaskRecord {
  return {
    taskNumber: r.task_number,
    appId: r.app_id,
    kind: r.kind,
    accountId: r.account_id,
    apiKeyId: r.api_key_id,
    status: r.status as TaskStatus,
    mode: r.mode as ExecutionMode,
    request: r.request as TaskRequest,
    progress: r.progress ?? null,
    result: r.result ?? null,
    comments: r.comments,
    usage: (r.usage as Usage | null) ?? null,
    idempotencyKey: r.idempotency_key,
    requestHash: r.request_hash,
    leaseOwner: r.lease_owner,
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
