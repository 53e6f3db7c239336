import type { EventBus, Logger } from '@tollgate/kit';
import { Prisma, type TasksDb } from './prisma-types';

const BATCH = 100;
const KEEP_PUBLISHED_MS = 24 * 3_600_000;

type Tx = Prisma.TransactionClient;

/** Writes an event row in the caller's transaction. */
export async function addEvent(tx: Tx, taskNumber: string, event: { subject: string; payload: object }): Promise<void> {
  await tx.taskEvent.create({ data: { taskNumber, subject: event.subject, payload: event.payload as Prisma.InputJsonValue } });
}

/**
 * Publishes the task_events rows written with each status change: right after the change commits
 * (`flush()`), and by a periodic sweep for rows a stopped replica left behind. At least once; the
 * message id lets the bus drop repeats.
 */
export class Outbox {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: TasksDb,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while ((await this.publishBatch()) === BATCH);
        } while (this.again);
      } catch (err) {
        this.log.warn({ err }, 'task events not published yet; the sweep retries');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      void this.flush();
      void this.db.taskEvent.deleteMany({ where: { publishedAt: { lt: new Date(Date.now() - KEEP_PUBLISHED_MS) } } }).catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private publishBatch(): Promise<number> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ id: bigint; task_number: string; subject: string; payload: unknown }>>`
        SELECT id, task_number, subject, payload FROM task_events WHERE published_at IS NULL ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
      for (const row of rows) {
        const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
        await this.bus.publish(row.subject, payload, { msgId: `${row.task_number}:${row.id}` });
      }
      if (rows.length > 0) {
        await tx.taskEvent.updateMany({ where: { id: { in: rows.map((r) => r.id) } }, data: { publishedAt: new Date() } });
      }
      return rows.length;
    });
  }
}
