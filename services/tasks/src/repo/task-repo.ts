import { ListEstimates, listTotal, TaskStatus, type ListEstimateOptions } from '@tollgate/kit';
import { statusEvent } from '../domain/events';
import { isFinal } from '../domain/status';
import type { ExecutionMode, TaskRecord, TaskRequest, Usage } from '../domain/types';
import type { HotQueryable, HotQueryOptions } from '@tollgate/kit';
import { toTask, toTaskFromSql } from './mappers';
import type { Outbox } from './outbox';
import { TaskInserts } from './task-inserts';
import { TaskTransitions } from './task-transitions';
import { Prisma, type TasksDb } from './prisma-types';
import { TASK_COLUMNS, eventPayloadOf, jsonText, ts, type EventColumns, type TaskSqlRow } from './task-sql';

export interface NewTask {
  taskNumber: string;
  appId: string;
  kind: string;
  accountId: number;
  apiKeyId: number;
  mode: ExecutionMode;
  request: TaskRequest;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** Default 等待中; a sync run is written once, in its final state. */
  status?: TaskStatus;
  startedAt?: Date;
  result?: unknown;
  comments?: string;
  usage?: Usage | null;
  /** A sync run's last progress report. */
  progress?: unknown;
  /** Written 执行中 by the replica that runs it (a keyed sync run): its lease. */
  lease?: { owner: string; expiresAt: Date };
}

export interface TaskChange {
  progress?: unknown;
  result?: unknown;
  comments?: string;
  usage?: Usage;
  /** A lease that no worker holds (a waiting task started by hand): when it runs out, a worker claims the task. */
  leaseUntil?: Date;
}

export interface TaskFilter {
  accountId?: number;
  statuses?: string[];
  kind?: string;
  appId?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

type Tx = Prisma.TransactionClient;

/** Lists count matching rows exactly up to this many; above it the total is the planner's estimate. */
export const EXACT_TOTAL_CAP = 100;
/** The queue behind a submission's time estimate is counted exactly up to this many (one cheap count per submission). */
export const EXACT_WAITING_CAP = 1_000;

/** "Plan Rows" of the top node of an `EXPLAIN (FORMAT JSON)` answer. */
function planRows(result: Array<Record<string, unknown>>): number {
  const raw = Object.values(result[0] ?? {})[0];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan?: { 'Plan Rows'?: number } }>;
  return Math.round(plan?.[0]?.Plan?.['Plan Rows'] ?? 0);
}
const json = (v: unknown) => (v === null ? Prisma.JsonNull : (v as Prisma.InputJsonValue));

type Row = TaskSqlRow & EventColumns;

/** The status is a literal, not a parameter, so that a generic plan too reads the queue's partial index. */
const COUNT_WAITING_SQL = `SELECT count(*)::int AS n FROM (SELECT 1 FROM tasks WHERE mode = 'async' AND status = '${TaskStatus.Waiting}' LIMIT $1) w`;

/**
 * Claims the oldest claimable async tasks, at most $4: waiting ones, or running ones whose lease ran
 * out (their worker stopped), oldest first whichever kind. The waiting ones are the head of the
 * queue's own partial index (`tasks_waiting_queue_idx`, the waiting async tasks in id order), so a
 * claim reads a few pages however many tasks wait or have finished; running tasks are few (the
 * workers' slots). Heads locked but not taken stay locked until the statement commits: a concurrent
 * claim skips them and takes the next, so no task is ever claimed twice.
 */
export const CLAIM_SQL = `
  WITH waiting AS (
    SELECT id FROM tasks WHERE mode = 'async' AND status = '${TaskStatus.Waiting}'
    ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED
  ), expired AS (
    SELECT id FROM tasks WHERE mode = 'async' AND status = '${TaskStatus.Running}' AND lease_expires_at < $3::timestamp
    ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED
  ), c AS (
    UPDATE tasks SET status = '${TaskStatus.Running}', lease_owner = $1, lease_expires_at = $2::timestamp,
           attempts = attempts + 1, started_at = COALESCE(started_at, $3::timestamp), updated_at = $3::timestamp
    WHERE id IN (SELECT id FROM (SELECT id FROM waiting UNION ALL SELECT id FROM expired) heads ORDER BY id LIMIT $4)
    RETURNING *
  ), e AS (
    INSERT INTO task_events (task_number, subject, payload)
    SELECT task_number, 'tasks.status.' || task_number, ${eventPayloadOf('c')} FROM c WHERE c.attempts = 1 ORDER BY c.id
    RETURNING id, task_number, subject, payload
  )
  SELECT c.*, e.id::text AS event_id, e.subject AS event_subject, e.payload AS event_payload
  FROM c LEFT JOIN e ON e.task_number = c.task_number ORDER BY c.id`;

/**
 * Tasks in PostgreSQL. Every state change is one statement that also writes its status event to
 * the outbox table; the event is published as soon as the statement returns (the outbox relay
 * only sweeps what a stopped replica left behind). The hot statements run on the plain pg pool.
 */
export class TaskRepo {
  private readonly estimates: ListEstimates<TaskFilter>;
  private readonly inserts: TaskInserts;
  private readonly transitions: TaskTransitions;

  constructor(
    private readonly db: TasksDb,
    private readonly hot: HotQueryable,
    private readonly outbox: Outbox,
    estimates: ListEstimateOptions = {},
  ) {
    this.estimates = new ListEstimates((filter) => this.estimateMatching(filter), estimates);
    this.inserts = new TaskInserts(hot);
    this.transitions = new TaskTransitions(hot);
  }

  /**
   * Inserts the task in its state (a sync run's final state, an async submission's 等待中) and its
   * event, in one statement with the others written at that moment (TaskInserts); 'duplicate'
   * when its Idempotency-Key (or number) is taken. `options.deadline`: the caller's, so a
   * saturated service refuses in time (UNAVAILABLE).
   */
  async create(t: NewTask, options: HotQueryOptions = {}): Promise<TaskRecord | 'duplicate'> {
    const now = new Date();
    const task: TaskRecord = {
      taskNumber: t.taskNumber,
      appId: t.appId,
      kind: t.kind,
      accountId: t.accountId,
      apiKeyId: t.apiKeyId,
      status: t.status ?? TaskStatus.Waiting,
      mode: t.mode,
      request: t.request,
      progress: t.progress ?? null,
      result: t.result ?? null,
      comments: t.comments ?? '',
      usage: t.usage ?? null,
      idempotencyKey: t.idempotencyKey,
      requestHash: t.requestHash,
      leaseOwner: t.lease?.owner ?? null,
      attempts: t.startedAt ? 1 : 0,
      createdAt: t.startedAt ?? now,
      updatedAt: now,
      startedAt: t.startedAt ?? null,
      finishedAt: isFinal(t.status ?? TaskStatus.Waiting) ? now : null,
    };
    const event = statusEvent(task);
    const eventId = await this.inserts.insert({ task, event, leaseExpiresAt: t.lease?.expiresAt }, options);
    if (eventId === null) return 'duplicate';
    await this.outbox.committed(eventId, event.subject, event.payload);
    return task;
  }

  async find(taskNumber: string): Promise<TaskRecord | null> {
    const { rows } = await this.hot.query<TaskSqlRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_number = $1`, [taskNumber]);
    return rows[0] ? toTaskFromSql(rows[0]) : null;
  }

  async findByIdempotencyKey(accountId: number, key: string): Promise<TaskRecord | null> {
    const { rows } = await this.hot.query<TaskSqlRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE account_id = $1 AND idempotency_key = $2`, [accountId, key]);
    return rows[0] ? toTaskFromSql(rows[0]) : null;
  }

  async findMany(taskNumbers: string[]): Promise<TaskRecord[]> {
    if (taskNumbers.length === 0) return [];
    const { rows } = await this.hot.query<TaskSqlRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_number = ANY($1::text[])`, [taskNumbers]);
    return rows.map(toTaskFromSql);
  }

  /**
   * A page newest first, on an index (`(account_id, id)`, or the primary key for admins), and a total
   * that is exact up to `EXACT_TOTAL_CAP` matching rows and PostgreSQL's planner estimate above it
   * (kept per filter for a couple of seconds: ListEstimates): page one costs the same at a hundred tasks and at a million.
   */
  async list(filter: TaskFilter, skip: number, take: number): Promise<{ items: TaskRecord[]; total: number }> {
    const where: Prisma.TaskWhereInput = {
      ...(filter.accountId !== undefined && { accountId: filter.accountId }),
      ...(filter.statuses?.length && { status: { in: filter.statuses } }),
      ...(filter.kind && { kind: filter.kind }),
      ...(filter.appId && { appId: filter.appId }),
      ...((filter.createdFrom || filter.createdTo) && { createdAt: { ...(filter.createdFrom && { gte: filter.createdFrom }), ...(filter.createdTo && { lt: filter.createdTo }) } }),
    };
    const [rows, counted] = await Promise.all([
      this.db.task.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      this.db.task.count({ where, take: EXACT_TOTAL_CAP + 1 }),
    ]);
    const total = await listTotal({ counted, cap: EXACT_TOTAL_CAP, skip, pageSize: take, rowsOnPage: rows.length, estimate: () => this.estimates.of(filter) });
    return { items: rows.map(toTask), total };
  }

  /** The planner's row estimate for the list's filter (no rows are read). */
  private async estimateMatching(f: TaskFilter): Promise<number> {
    const conds: Prisma.Sql[] = [];
    if (f.accountId !== undefined) conds.push(Prisma.sql`account_id = ${f.accountId}`);
    if (f.statuses?.length) conds.push(Prisma.sql`status IN (${Prisma.join(f.statuses)})`);
    if (f.kind) conds.push(Prisma.sql`kind = ${f.kind}`);
    if (f.appId) conds.push(Prisma.sql`app_id = ${f.appId}`);
    if (f.createdFrom) conds.push(Prisma.sql`created_at >= ${ts(f.createdFrom)}::timestamp`);
    if (f.createdTo) conds.push(Prisma.sql`created_at < ${ts(f.createdTo)}::timestamp`);
    const where = conds.length ? Prisma.sql`WHERE ${Prisma.join(conds, ' AND ')}` : Prisma.empty;
    const plan = await this.db.$queryRaw<Array<Record<string, unknown>>>`EXPLAIN (FORMAT JSON) SELECT 1 FROM tasks ${where}`;
    return planRows(plan);
  }

  /**
   * Moves a task to `to` if it is still in one of `from` (and, when `leaseOwner` is given, still
   * leased by it), writing its status event, in one statement; null when that no longer holds.
   */
  async transition(taskNumber: string, from: TaskStatus[], to: TaskStatus, change: TaskChange = {}, leaseOwner?: string): Promise<TaskRecord | null> {
    const row = await this.transitions.apply({
      taskNumber,
      to,
      from,
      leaseOwner: leaseOwner ?? null,
      progress: change.progress !== undefined ? jsonText(change.progress) : undefined,
      result: change.result !== undefined ? jsonText(change.result) : undefined,
      usage: change.usage !== undefined ? jsonText(change.usage) : undefined,
      comments: change.comments ?? null,
      leaseUntil: change.leaseUntil ? ts(change.leaseUntil) : null,
      starting: to === TaskStatus.Running && !from.includes(TaskStatus.Running),
      final: isFinal(to),
      at: ts(new Date()),
    });
    return row ? this.published(row) : null;
  }

  /**
   * Claims up to `limit` of the oldest waiting async tasks, or ones whose lease expired, for `owner`,
   * in one statement (`FOR UPDATE SKIP LOCKED`: replicas never claim the same task), oldest first.
   * The 执行中 event is written on the first claim only; a re-claim is not a state change.
   */
  async claim(owner: string, leaseMs: number, limit: number): Promise<TaskRecord[]> {
    const now = new Date();
    const { rows } = await this.hot.query<Row>(CLAIM_SQL, [owner, ts(new Date(now.getTime() + leaseMs)), ts(now), limit]);
    const claimed: TaskRecord[] = [];
    for (const row of rows) claimed.push(await this.published(row));
    return claimed;
  }

  private async published(row: Row): Promise<TaskRecord> {
    if (row.event_id && row.event_subject) await this.outbox.committed(row.event_id, row.event_subject, row.event_payload as object);
    return toTaskFromSql(row);
  }

  /** Extends the lease; false when the task is no longer this owner's running task (cancelled, finished, re-claimed). */
  async heartbeat(taskNumber: string, owner: string, leaseMs: number): Promise<boolean> {
    const res = await this.hot.query(`UPDATE tasks SET lease_expires_at = $3::timestamp WHERE task_number = $1 AND lease_owner = $2 AND status = '${TaskStatus.Running}'`, [
      taskNumber,
      owner,
      ts(new Date(Date.now() + leaseMs)),
    ]);
    return res.rowCount === 1;
  }

  /** Lets another replica claim this owner's running async tasks at once (graceful shutdown). */
  async releaseLeases(owner: string): Promise<void> {
    await this.db.task.updateMany({ where: { leaseOwner: owner, status: TaskStatus.Running, mode: 'async' }, data: { leaseExpiresAt: new Date(0) } });
  }

  /** Waiting and running tasks of an external app, oldest first, `limit` at a time. */
  async unfinishedOfExternalApp(appId: string, limit: number): Promise<TaskRecord[]> {
    const rows = await this.db.task.findMany({ where: { appId, mode: 'external', status: { in: [TaskStatus.Waiting, TaskStatus.Running] } }, orderBy: { id: 'asc' }, take: limit });
    return rows.map(toTask);
  }

  /** Running sync tasks whose replica stopped heartbeating: their caller is gone, so they fail. */
  async failAbandonedSync(comments: string): Promise<TaskRecord[]> {
    const stale = await this.db.task.findMany({ where: { mode: 'sync', status: TaskStatus.Running, leaseExpiresAt: { lt: new Date() } }, take: 100 });
    const failed: TaskRecord[] = [];
    for (const row of stale) {
      const task = await this.transition(row.taskNumber, [TaskStatus.Running], TaskStatus.Failed, { comments }, row.leaseOwner ?? undefined);
      if (task) failed.push(task);
    }
    return failed;
  }

  /** Waiting async tasks: counted up to `EXACT_WAITING_CAP` on the queue index, the planner's estimate above it. */
  async countWaiting(): Promise<number> {
    const { rows } = await this.hot.query<{ n: number }>(COUNT_WAITING_SQL, [EXACT_WAITING_CAP + 1]);
    const counted = rows[0].n;
    if (counted <= EXACT_WAITING_CAP) return counted;
    const plan = await this.db.$queryRaw<Array<Record<string, unknown>>>`EXPLAIN (FORMAT JSON) SELECT 1 FROM tasks WHERE mode = 'async' AND status = ${TaskStatus.Waiting}`;
    return Math.max(counted, planRows(plan));
  }
}

