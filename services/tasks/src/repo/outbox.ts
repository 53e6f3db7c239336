import type { EventBus, HotQueryable, Logger } from '@tollgate/kit';
import type { TasksDb } from './prisma-types';

const BATCH = 100;
const KEEP_PUBLISHED_MS = 24 * 3_600_000;
/** The sweep is nobody's request: it waits this long for a connection of a busy or slowly starting database (Prisma's default is 2 s). */
const SWEEP_CONNECTION_WAIT_MS = 10_000;

/**
 * Publishes the task_events rows written by each status change. The statement that wrote one hands
 * it over (`committed()`): it is published at once and, once the bus says it is safe (stored on
 * disk by JetStream; acknowledged by every durable consumer on the in-process bus, which a killed
 * process takes with it), deleted in bulk with the others of the last period, not one round trip
 * per event (deleting a row writes no new row version and no index entry, where marking it
 * published wrote both). A periodic sweep publishes the rows nobody handed over within `graceMs`
 * (a replica stopped between its commit and its publish, or before its consumers had them). At
 * least once; the message id (task number + row id) lets the bus drop repeats.
 */
export class Outbox {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private sent: string[] = [];
  /** Published by this replica and not yet safe (PublishOptions.onConsumed): the sweep leaves them, and those in `sent`, be. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly db: TasksDb,
    private readonly hot: HotQueryable,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly graceMs = 10_000,
  ) {}

  /** Publishes an event whose row just committed; a failure leaves it to the sweep. */
  async committed(id: string, subject: string, payload: object): Promise<void> {
    try {
      await this.publish(id, (payload as { task_number?: string }).task_number ?? '', subject, payload);
    } catch (err) {
      this.log.warn({ err, subject }, 'task event not published yet; the sweep retries');
    }
  }

  /** Publishes one row's event; the row is deleted (next markSent) once the bus says the event is safe. */
  private async publish(id: string, taskNumber: string, subject: string, payload: unknown): Promise<void> {
    this.inFlight.add(id);
    try {
      await this.bus.publish(subject, payload, {
        msgId: `${taskNumber}:${id}`,
        onConsumed: () => {
          this.inFlight.delete(id);
          this.sent.push(id);
        },
      });
    } catch (err) {
      this.inFlight.delete(id);
      throw err;
    }
  }

  /** Sweeps unpublished rows older than the grace period. */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        await this.markSent();
        do {
          this.again = false;
          while ((await this.publishBatch()) === BATCH);
        } while (this.again);
        await this.markSent();
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
      // Rows that versions before the delete-on-publish marked published.
      void this.db.taskEvent.deleteMany({ where: { publishedAt: { lt: new Date(Date.now() - KEEP_PUBLISHED_MS) } } }).catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.markSent().catch((err: unknown) => this.log.warn({ err }, 'marking published task events failed; the sweep publishes them again'));
  }

  /** One statement for every event published since the last call. */
  private async markSent(): Promise<void> {
    while (this.sent.length > 0) {
      const ids = this.sent.splice(0, 5_000);
      try {
        await this.hot.query('DELETE FROM task_events WHERE id = ANY($1::bigint[])', [ids]);
      } catch (err) {
        this.sent.unshift(...ids);
        throw err;
      }
    }
  }

  private publishBatch(): Promise<number> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ id: bigint; task_number: string; subject: string; payload: unknown }>>`
        SELECT id, task_number, subject, payload FROM task_events
        WHERE published_at IS NULL AND created_at < LOCALTIMESTAMP - make_interval(secs => ${this.graceMs / 1000})
          AND id <> ALL(${[...this.inFlight, ...this.sent]}::bigint[])
        ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
      for (const row of rows) {
        const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
        await this.publish(String(row.id), row.task_number, row.subject, payload);
      }
      return rows.length;
    }, { maxWait: SWEEP_CONNECTION_WAIT_MS });
  }
}


