import { FINAL_TASK_STATUSES } from '@tollgate/kit';

const FINAL = FINAL_TASK_STATUSES.map((s) => `'${s}'`).join(', ');

/** A `timestamp` parameter (UTC, the way Prisma stores these columns). */
export const ts = (d: Date) => d.toISOString();
/** A `jsonb` parameter; undefined is stored as JSON null. */
export const jsonText = (v: unknown) => JSON.stringify(v === undefined ? null : v);

/**
 * The `tasks.status.<task_number>` event payload of the task row `t`, built by the statement that
 * changes it (the same fields as domain/events.ts statusEvent()).
 */
export const eventPayloadOf = (t: string) => `(
  jsonb_build_object('task_number', ${t}.task_number, 'status', ${t}.status, 'kind', ${t}.kind, 'app_id', ${t}.app_id,
    'account_id', ${t}.account_id, 'api_key_id', ${t}.api_key_id, 'at', to_char(${t}.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  || CASE WHEN ${t}.progress IS NOT NULL AND jsonb_typeof(${t}.progress) <> 'null' THEN jsonb_build_object('task_progress', ${t}.progress) ELSE '{}'::jsonb END
  || CASE WHEN ${t}.status IN (${FINAL}) THEN
       CASE WHEN ${t}.usage IS NOT NULL AND jsonb_typeof(${t}.usage) <> 'null' THEN jsonb_build_object('usage', ${t}.usage) ELSE '{}'::jsonb END
       || CASE WHEN ${t}.started_at IS NOT NULL AND ${t}.finished_at IS NOT NULL
            THEN jsonb_build_object('duration_ms', round(extract(epoch FROM ${t}.finished_at - ${t}.started_at) * 1000)::bigint) ELSE '{}'::jsonb END
       || CASE WHEN ${t}.started_at IS NULL THEN '{"never_ran": true}'::jsonb ELSE '{}'::jsonb END
       || jsonb_build_object('webhook', COALESCE(jsonb_typeof(${t}.request->'webhook') = 'string', false))
     ELSE '{}'::jsonb END)`;

export const TASK_COLUMNS = `task_number, app_id, kind, account_id, api_key_id, status, mode, request, progress, result, comments, usage,
  idempotency_key, request_hash, lease_owner, attempts, created_at, updated_at, started_at, finished_at`;

/** A task row as the hot pool returns it. */
export interface TaskSqlRow {
  task_number: string;
  app_id: string;
  kind: string;
  account_id: number;
  api_key_id: number;
  status: string;
  mode: string;
  request: unknown;
  progress: unknown;
  result: unknown;
  comments: string;
  usage: unknown;
  idempotency_key: string | null;
  request_hash: string | null;
  lease_owner: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** Columns of the event a statement wrote, returned next to the task's. */
export interface EventColumns {
  event_id: string | null;
  event_subject: string | null;
  event_payload: unknown;
}
