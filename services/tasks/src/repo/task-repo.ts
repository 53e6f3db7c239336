import { TaskStatus } from '@tollgate/kit';
import { statusEvent } from '../domain/events';
import { isFinal } from '../domain/status';
import type { ExecutionMode, TaskRecord, TaskRequest, Usage } from '../domain/types';
import { toTask } from './mappers';
import { addEvent } from './outbox';
import { Prisma, type TasksDb } from './prisma-types';

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
  /** Set for a sync task: it starts 执行中 under this lease. */
  lease?: { owner: string; ms: number };
}

export interface TaskChange {
  progress?: unknown;
  result?: unknown;
  comments?: string;
  usage?: Usage;
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
const json = (v: unknown) => (v === null ? Prisma.JsonNull : (v as Prisma.InputJsonValue));
const ts = (d: Date) => d.toISOString();

/** Tasks in PostgreSQL; every status change writes its event to the outbox in the same transaction. */
export class TaskRepo {
  constructor(private readonly db: TasksDb) {}

  /** Inserts the task and its first event; 'duplicate' when its Idempotency-Key (or number) is taken. */
  async create(t: NewTask): Promise<TaskRecord | 'duplicate'> {
    const now = new Date();
    const running = t.lease !== undefined;
    try {
      return await this.db.$transaction(async (tx) => {
        const row = await tx.task.create({
          data: {
            taskNumber: t.taskNumber,
            appId: t.appId,
            kind: t.kind,
            accountId: t.accountId,
            apiKeyId: t.apiKeyId,
            mode: t.mode,
            request: json(t.request),
            idempotencyKey: t.idempotencyKey,
            requestHash: t.requestHash,
            status: running ? TaskStatus.Running : TaskStatus.Waiting,
            ...(running && { leaseOwner: t.lease!.owner, leaseExpiresAt: new Date(now.getTime() + t.lease!.ms), startedAt: now, attempts: 1 }),
          },
        });
        const task = toTask(row);
        await addEvent(tx, task.taskNumber, statusEvent(task));
        return task;
      });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return 'duplicate';
      throw err;
    }
  }

  async find(taskNumber: string): Promise<TaskRecord | null> {
    const row = await this.db.task.findUnique({ where: { taskNumber } });
    return row && toTask(row);
  }

  async findByIdempotencyKey(accountId: number, key: string): Promise<TaskRecord | null> {
    const row = await this.db.task.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey: key } } });
    return row && toTask(row);
  }

  async findMany(taskNumbers: string[]): Promise<TaskRecord[]> {
    const rows = await this.db.task.findMany({ where: { taskNumber: { in: taskNumbers } } });
    return rows.map(toTask);
  }

  async list(filter: TaskFilter, skip: number, take: number): Promise<{ items: TaskRecord[]; total: number }> {
    const where: Prisma.TaskWhereInput = {
      ...(filter.accountId !== undefined && { accountId: filter.accountId }),
      ...(filter.statuses?.length && { status: { in: filter.statuses } }),
      ...(filter.kind && { kind: filter.kind }),
      ...(filter.appId && { appId: filter.appId }),
      ...((filter.createdFrom || filter.createdTo) && { createdAt: { ...(filter.createdFrom && { gte: filter.createdFrom }), ...(filter.createdTo && { lt: filter.createdTo }) } }),
    };
    const [rows, total] = await this.db.$transaction([this.db.task.findMany({ where, orderBy: { id: 'desc' }, skip, take }), this.db.task.count({ where })]);
    return { items: rows.map(toTask), total };
  }

  /**
   * Moves a task to `to` if it is still in one of `from` (and, when `leaseOwner` is given, still
   * leased by it); null when that no longer holds. Writes the status event in the same transaction.
   */
  transition(taskNumber: string, from: TaskStatus[], to: TaskStatus, change: TaskChange = {}, leaseOwner?: string): Promise<TaskRecord | null> {
    return this.db.$transaction((tx) => this.transitionIn(tx, taskNumber, from, to, change, leaseOwner));
  }

  private async transitionIn(tx: Tx, taskNumber: string, from: TaskStatus[], to: TaskStatus, change: TaskChange, leaseOwner?: string): Promise<TaskRecord | null> {
    const now = new Date();
    const final = isFinal(to);
    const starting = to === TaskStatus.Running && !from.includes(TaskStatus.Running);
    const updated = await tx.task.updateMany({
      where: { taskNumber, status: { in: from }, ...(leaseOwner !== undefined && { leaseOwner }) },
      data: {
        status: to,
        ...(change.progress !== undefined && { progress: json(change.progress) }),
        ...(change.result !== undefined && { result: json(change.result) }),
        ...(change.comments !== undefined && { comments: change.comments }),
        ...(change.usage !== undefined && { usage: json(change.usage) }),
        ...(starting && { startedAt: now }),
        ...(final && { finishedAt: now, leaseOwner: null, leaseExpiresAt: null }),
      },
    });
    if (updated.count === 0) return null;
    const task = toTask((await tx.task.findUnique({ where: { taskNumber } }))!);
    await addEvent(tx, taskNumber, statusEvent(task));
    return task;
  }

  /**
   * Claims the oldest waiting async task, or one whose lease expired, for `owner`
   * (`FOR UPDATE SKIP LOCKED`: replicas never claim the same task). The 执行中 event is written on
   * the first claim only; a re-claim is not a state change.
   */
  claimNext(owner: string, leaseMs: number): Promise<TaskRecord | null> {
    return this.db.$transaction(async (tx) => {
      const now = new Date();
      const expires = new Date(now.getTime() + leaseMs);
      const claimed = await tx.$queryRaw<Array<{ task_number: string }>>`
        UPDATE tasks SET status = ${TaskStatus.Running}, lease_owner = ${owner}, lease_expires_at = ${ts(expires)}::timestamp,
               attempts = attempts + 1, started_at = COALESCE(started_at, ${ts(now)}::timestamp), updated_at = ${ts(now)}::timestamp
        WHERE id = (
          SELECT id FROM tasks
          WHERE mode = 'async' AND (status = ${TaskStatus.Waiting} OR (status = ${TaskStatus.Running} AND lease_expires_at < ${ts(now)}::timestamp))
          ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING task_number`;
      if (claimed.length === 0) return null;
      const task = toTask((await tx.task.findUnique({ where: { taskNumber: claimed[0].task_number } }))!);
      if (task.attempts === 1) await addEvent(tx, task.taskNumber, statusEvent(task));
      return task;
    });
  }

  /** Extends the lease; false when the task is no longer this owner's running task (cancelled, finished, re-claimed). */
  async heartbeat(taskNumber: string, owner: string, leaseMs: number): Promise<boolean> {
    const res = await this.db.task.updateMany({
      where: { taskNumber, leaseOwner: owner, status: TaskStatus.Running },
      data: { leaseExpiresAt: new Date(Date.now() + leaseMs) },
    });
    return res.count === 1;
  }

  /** Lets another replica claim this owner's running async tasks at once (graceful shutdown). */
  async releaseLeases(owner: string): Promise<void> {
    await this.db.task.updateMany({ where: { leaseOwner: owner, status: TaskStatus.Running, mode: 'async' }, data: { leaseExpiresAt: new Date(0) } });
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

  /** Mean run time of the app's last completed tasks, in ms; null before the first one. */
  async recentDurationMs(appId: string): Promise<number | null> {
    const rows = await this.db.task.findMany({
      where: { appId, status: TaskStatus.Completed, startedAt: { not: null }, finishedAt: { not: null } },
      orderBy: { id: 'desc' },
      take: 20,
      select: { startedAt: true, finishedAt: true },
    });
    if (rows.length === 0) return null;
    return rows.reduce((sum, r) => sum + (r.finishedAt!.getTime() - r.startedAt!.getTime()), 0) / rows.length;
  }

  countWaiting(): Promise<number> {
    return this.db.task.count({ where: { mode: 'async', status: TaskStatus.Waiting } });
  }
}
