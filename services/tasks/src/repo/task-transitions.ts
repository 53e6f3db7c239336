import { Coalescer, type HotQueryable } from '@tollgate/kit';
import { eventPayloadOf, type EventColumns, type TaskSqlRow } from './task-sql';

/** One state change: the task, its new status, the statuses it may be in, and what else changes. */
export interface Transition {
  taskNumber: string;
  to: string;
  from: string[];
  /** Only while this owner holds the task's lease. */
  leaseOwner: string | null;
  /** JSON text of each changed field; undefined leaves the column as it is. */
  progress?: string;
  result?: string;
  usage?: string;
  comments: string | null;
  /** New lease expiry (a `timestamp` parameter); null keeps the lease as it is. */
  leaseUntil: string | null;
  starting: boolean;
  final: boolean;
  /** The change's time, as a `timestamp` parameter. */
  at: string;
}

/** The task after the change and the event written with it. */
export type TransitionRow = TaskSqlRow & EventColumns;

type Changed = { row: TransitionRow | null } | { failed: unknown };

/** Changes written by one statement, at most. */
const TRANSITION_BATCH = 100;
/** A deadlock with another replica's statement, or a value PostgreSQL refused: each change is written on its own. */
const oneByOne = (err: unknown) => /^(40P01|22|23)/.test((err as { code?: string }).code ?? '');

/** The columns of one change, as the statement reads them, with their types. */
const INPUT: ReadonlyArray<readonly [string, string]> = [
  ['task_number', 'text'],
  ['status', 'text'],
  // The `from` statuses joined by a comma (none of them has one).
  ['from_statuses', 'text'],
  ['lease_owner', 'text'],
  ['set_progress', 'boolean'],
  ['progress', 'text'],
  ['set_result', 'boolean'],
  ['result', 'text'],
  ['comments', 'text'],
  ['set_usage', 'boolean'],
  ['usage', 'text'],
  ['lease_until', 'text'],
  ['starting', 'boolean'],
  ['final', 'boolean'],
  ['at', 'text'],
];

/** Applies the changes of `i` whose task is in one of their `from` statuses (and leased by their owner), writing each one's event. */
const changeSql = (input: string) => `
  WITH i AS (${input}), t AS (
    UPDATE tasks SET
      status = i.status,
      progress = CASE WHEN i.set_progress THEN i.progress::jsonb ELSE tasks.progress END,
      result = CASE WHEN i.set_result THEN i.result::jsonb ELSE tasks.result END,
      comments = COALESCE(i.comments, tasks.comments),
      usage = CASE WHEN i.set_usage THEN i.usage::jsonb ELSE tasks.usage END,
      started_at = CASE WHEN i.starting THEN i.at::timestamp ELSE tasks.started_at END,
      finished_at = CASE WHEN i.final THEN i.at::timestamp ELSE tasks.finished_at END,
      lease_owner = CASE WHEN i.final THEN NULL ELSE tasks.lease_owner END,
      lease_expires_at = CASE WHEN i.final THEN NULL WHEN i.lease_until IS NOT NULL THEN i.lease_until::timestamp ELSE tasks.lease_expires_at END,
      updated_at = i.at::timestamp
    FROM i
    WHERE tasks.task_number = i.task_number AND tasks.status = ANY(string_to_array(i.from_statuses, ','))
      AND (i.lease_owner IS NULL OR tasks.lease_owner = i.lease_owner)
    RETURNING tasks.*
  ), e AS (
    INSERT INTO task_events (task_number, subject, payload)
    SELECT task_number, 'tasks.status.' || task_number, ${eventPayloadOf('t')} FROM t
    RETURNING id, task_number, subject, payload
  )
  SELECT t.*, e.id::text AS event_id, e.subject AS event_subject, e.payload AS event_payload FROM t LEFT JOIN e ON e.task_number = t.task_number`;

/** One change, its columns as parameters. */
const TRANSITION_SQL = changeSql(`SELECT ${INPUT.map(([name, type], n) => `$${n + 1}::${type} AS ${name}`).join(', ')}`);
/** Many changes of different tasks, each parameter an array of one column. */
const TRANSITION_MANY_SQL = changeSql(
  `SELECT * FROM unnest(${INPUT.map(([, type], n) => `$${n + 1}::${type}[]`).join(', ')}) AS i(${INPUT.map(([name]) => name).join(', ')})`,
);

function columnsOf(c: Transition): unknown[] {
  return [
    c.taskNumber,
    c.to,
    c.from.join(','),
    c.leaseOwner,
    c.progress !== undefined,
    c.progress ?? null,
    c.result !== undefined,
    c.result ?? null,
    c.comments,
    c.usage !== undefined,
    c.usage ?? null,
    c.leaseUntil,
    c.starting,
    c.final,
    c.at,
  ];
}

/**
 * Writes task state changes with their events. The changes asked for while one statement is under
 * way go out together in the next (one commit for the runs that finished at that moment); each
 * caller hears about its own task. Two changes of one task in the same batch are written one after
 * the other, in the order they were asked for.
 */
export class TaskTransitions {
  private readonly batches: Coalescer<Transition, Changed>;

  constructor(private readonly hot: HotQueryable) {
    this.batches = new Coalescer((items) => this.write(items), TRANSITION_BATCH);
  }

  /** The changed row with its event, or null when the task was not in a `from` status (or not the owner's). */
  async apply(change: Transition): Promise<TransitionRow | null> {
    const changed = await this.batches.submit(change);
    if ('failed' in changed) throw changed.failed;
    return changed.row;
  }

  private async write(items: Transition[]): Promise<Changed[]> {
    const distinct = new Set(items.map((i) => i.taskNumber)).size === items.length;
    if (items.length > 1 && distinct) {
      try {
        return await this.writeMany(items);
      } catch (err) {
        if (!oneByOne(err)) throw err;
      }
    }
    const results: Changed[] = [];
    for (const item of items) {
      results.push(
        await this.hot.query<TransitionRow>(TRANSITION_SQL, columnsOf(item)).then(
          ({ rows }) => ({ row: rows[0] ?? null }),
          (failed: unknown) => ({ failed }),
        ),
      );
    }
    return results;
  }

  private async writeMany(items: Transition[]): Promise<Changed[]> {
    const rows = items.map(columnsOf);
    const columns = rows[0].map((_, c) => rows.map((r) => r[c]));
    const { rows: changed } = await this.hot.query<TransitionRow>(TRANSITION_MANY_SQL, columns);
    const byTask = new Map(changed.map((r) => [r.task_number, r]));
    return items.map((i) => ({ row: byTask.get(i.taskNumber) ?? null }));
  }
}
