import { Coalescer, CoalescerTimeout, serviceAtCapacity, statementWaitMs, type HotQueryable, type HotQueryOptions } from '@tollgate/kit';
import type { TaskRecord } from '../domain/types';
import { jsonText, ts } from './task-sql';

/** A new task row and its status event, as one insert writes them. */
export interface TaskInsert {
  task: TaskRecord;
  event: { subject: string; payload: object };
  /** A task written 执行中 by the replica that runs it (a keyed sync run): its lease. */
  leaseExpiresAt?: Date;
}

/** An insert waiting for its statement, with its caller's deadline. */
type Queued = TaskInsert & { deadline?: number };

/** The id of a written task's event (null: a duplicate), or why this task could not be written. */
type Written = { eventId: string | null } | { failed: unknown };

/** Tasks written by one statement, at most. */
const INSERT_BATCH = 100;
/**
 * Errors of a many-task statement after which each task is written on its own: a deadlock (two
 * statements took the same idempotency keys in turn), or a value or constraint PostgreSQL refused
 * (classes 22 and 23), which must fail only the task that carries it.
 */
const oneByOne = (err: unknown) => /^(40P01|22|23)/.test((err as { code?: string }).code ?? '');

/** One task: the statement of a batch of one (measured cheaper for PostgreSQL than the unnest form below, 0.53–0.78 against 0.72–0.91 ms per insert at one client). */
const CREATE_SQL = `
  WITH t AS (
    INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, result, comments, usage,
                       idempotency_key, request_hash, attempts, created_at, updated_at, started_at, finished_at, progress,
                       lease_owner, lease_expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11::jsonb, $12, $13, $14,
            $15::timestamp, $15::timestamp, $16::timestamp, $17::timestamp, $20::jsonb, $21, $22::timestamp)
    ON CONFLICT DO NOTHING
    RETURNING task_number
  ), e AS (
    INSERT INTO task_events (task_number, subject, payload)
    SELECT task_number, $18, $19::jsonb FROM t
    RETURNING id
  )
  SELECT id::text AS event_id FROM e`;

/**
 * The same for many tasks, in the given order: a task whose number or idempotency key an existing
 * row or an earlier task of the statement took is left out (a duplicate), as CREATE_SQL leaves it.
 */
const CREATE_MANY_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                         $11::text[], $12::text[], $13::text[], $14::int[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[],
                         $21::text[], $22::text[])
      WITH ORDINALITY AS i(task_number, app_id, kind, account_id, api_key_id, status, mode, request, result, comments,
                           usage, idempotency_key, request_hash, attempts, created_at, started_at, finished_at, subject, payload, progress,
                           lease_owner, lease_expires_at, idx)
  ), t AS (
    INSERT INTO tasks (task_number, app_id, kind, account_id, api_key_id, status, mode, request, result, comments, usage,
                       idempotency_key, request_hash, attempts, created_at, updated_at, started_at, finished_at, progress,
                       lease_owner, lease_expires_at)
    SELECT task_number, app_id, kind, account_id, api_key_id, status, mode, request::jsonb, result::jsonb, comments, usage::jsonb,
           idempotency_key, request_hash, attempts, created_at::timestamp, created_at::timestamp, started_at::timestamp, finished_at::timestamp, progress::jsonb,
           lease_owner, lease_expires_at::timestamp
    FROM input ORDER BY idx
    ON CONFLICT DO NOTHING
    RETURNING task_number
  ), e AS (
    INSERT INTO task_events (task_number, subject, payload)
    SELECT i.task_number, i.subject, i.payload::jsonb FROM input i JOIN t USING (task_number)
    WHERE NOT EXISTS (SELECT 1 FROM input earlier WHERE earlier.task_number = i.task_number AND earlier.idx < i.idx)
    ORDER BY i.idx
    RETURNING id, task_number
  )
  SELECT id::text AS event_id, task_number FROM e`;

function columnsOf({ task, event, leaseExpiresAt }: TaskInsert): unknown[] {
  return [
    task.taskNumber,
    task.appId,
    task.kind,
    task.accountId,
    task.apiKeyId,
    task.status,
    task.mode,
    jsonText(task.request),
    task.result === null ? null : jsonText(task.result),
    task.comments,
    task.usage === null ? null : jsonText(task.usage),
    task.idempotencyKey,
    task.requestHash,
    task.attempts,
    ts(task.createdAt),
    task.startedAt && ts(task.startedAt),
    task.finishedAt && ts(task.finishedAt),
    event.subject,
    JSON.stringify(event.payload),
    task.progress === null ? null : jsonText(task.progress),
    task.leaseOwner,
    leaseExpiresAt ? ts(leaseExpiresAt) : null,
  ];
}

/**
 * Inserts task rows with their events. The inserts asked for while one statement is under way go
 * out together in the next (one commit for the sync results and async submissions of that
 * moment); each caller hears about its own task. An insert still queued when its caller's
 * deadline is near is dropped unwritten and refused with UNAVAILABLE; one already sent is waited
 * for (its outcome is not known before its statement ends).
 */
export class TaskInserts {
  private readonly batches: Coalescer<Queued, Written>;

  constructor(private readonly hot: HotQueryable) {
    this.batches = new Coalescer((items) => this.write(items), INSERT_BATCH);
  }

  /** The id of the task's event, or null when the task number or idempotency key was taken. */
  async insert(item: TaskInsert, options: HotQueryOptions = {}): Promise<string | null> {
    const waitMs = options.deadline === undefined ? undefined : statementWaitMs(options.deadline);
    if (waitMs !== undefined && waitMs <= 0) throw serviceAtCapacity();
    let written: Written;
    try {
      written = await this.batches.submit({ ...item, deadline: options.deadline }, waitMs, { whileQueued: true });
    } catch (err) {
      if (err instanceof CoalescerTimeout) throw serviceAtCapacity();
      throw err;
    }
    if ('failed' in written) throw written.failed;
    return written.eventId;
  }

  private async write(items: Queued[]): Promise<Written[]> {
    // A statement waits for a pool connection no longer than its most pressing caller can wait.
    const deadlines = items.flatMap((i) => (i.deadline === undefined ? [] : [i.deadline]));
    const options: HotQueryOptions = { deadline: deadlines.length > 0 ? Math.min(...deadlines) : undefined };
    if (items.length > 1) {
      try {
        return await this.writeMany(items, options);
      } catch (err) {
        if (!oneByOne(err)) throw err;
      }
    }
    return Promise.all(
      items.map((item) =>
        this.hot.query<{ event_id: string }>(CREATE_SQL, columnsOf(item), options).then(
          ({ rows }) => ({ eventId: rows[0]?.event_id ?? null }),
          (failed: unknown) => ({ failed }),
        ),
      ),
    );
  }

  private async writeMany(items: TaskInsert[], options: HotQueryOptions): Promise<Written[]> {
    const rows = items.map(columnsOf);
    const columns = rows[0].map((_, c) => rows.map((r) => r[c]));
    const { rows: events } = await this.hot.query<{ event_id: string; task_number: string }>(CREATE_MANY_SQL, columns, options);
    const byTask = new Map(events.map((e) => [e.task_number, e.event_id]));
    return items.map((i) => {
      const eventId = byTask.get(i.task.taskNumber) ?? null;
      byTask.delete(i.task.taskNumber);
      return { eventId };
    });
  }
}
