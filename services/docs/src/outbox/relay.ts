import type { EventBus, Logger } from '@tollgate/kit';
import type { OutboxRepo, OutboxRow } from '../repo/outbox-repo';

export interface RelayOptions {
  pollMs: number;
  batch: number;
  /** Published rows older than this are pruned (checked at most hourly). */
  keepMs?: number;
}

const HOUR = 3_600_000;
/** How long rows that became safe wait for others before they are marked together. */
const MARK_LINGER_MS = 50;
/** Most unpublished ids one sweep reads. */
const SWEEP_LIMIT = 100_000;

/**
 * Publishes the outbox to the bus in id order and marks a row published once the bus says its
 * event is safe (stored on disk by JetStream; acknowledged by every durable consumer on the
 * in-process bus, which a killed process takes with it). Woken by `poke()` after each commit and
 * by a timer otherwise, so events written while the bus was down go out once it is back. Each row
 * is published with msgId `docs-outbox-<id>`, so a row published again after a crash between
 * publish and mark is stored once by the bus.
 *
 * Claims read only rows above the highest id published so far (`publishedUpTo`): a bulk import's
 * thousands of events awaiting a slow consumer are never read again. A row whose transaction
 * committed after rows with higher ids went out is found by the sweep, at most once per poll period.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private poked = false;
  private lastPrune = 0;
  /** Published and not yet marked: waiting for the bus, then in `safe` for markPublished. */
  private readonly unmarked = new Map<string, OutboxRow>();
  private safe: OutboxRow[] = [];
  private marking?: NodeJS.Timeout;
  /** Marks run one at a time: concurrent ones would queue on the same content-analytics rows and hold the pool's connections meanwhile. */
  private lastMark: Promise<void> = Promise.resolve();
  private cursor = 0n;
  private lastSweep = 0;

  constructor(
    private readonly outbox: OutboxRepo,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly options: RelayOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    clearTimeout(this.marking);
    this.marking = undefined;
    await this.markSafeInTurn().catch((err: unknown) => this.log.warn({ err }, 'marking published outbox rows failed; they are published again at the next start'));
  }

  /** Every row this relay published has an id up to this; rows above it are new to it. */
  get publishedUpTo(): bigint {
    return this.cursor;
  }

  /**
   * Publishes until the outbox is empty or the bus fails, marking what is safe; returns how many
   * rows went out. `sweep`: first also rows below `publishedUpTo` this relay does not hold.
   */
  async drain({ sweep = false }: { sweep?: boolean } = {}): Promise<number> {
    let total = 0;
    try {
      // With nothing unmarked, every row below the cursor that is still unpublished committed late: start over.
      if (this.unmarked.size === 0) this.cursor = 0n;
      else if (sweep) total += await this.sweepLate();
      for (;;) {
        const { claimed, published } = await this.outbox.claim(this.options.batch, this.cursor, (rows) => this.publish(rows));
        total += published;
        if (published < claimed) throw new Error(`bus refused outbox events after ${published} of ${claimed}`);
        if (claimed < this.options.batch) return total;
      }
    } finally {
      await this.markSafeInTurn();
    }
  }

  private async sweepLate(): Promise<number> {
    this.lastSweep = Date.now();
    const late = (await this.outbox.unpublishedUpTo(this.cursor, SWEEP_LIMIT)).filter((id) => !this.unmarked.has(String(id)));
    let total = 0;
    for (let i = 0; i < late.length; i += this.options.batch) {
      const { claimed, published } = await this.outbox.claimIds(late.slice(i, i + this.options.batch), (rows) => this.publish(rows));
      total += published;
      if (published < claimed) throw new Error(`bus refused outbox events after ${published} of ${claimed}`);
    }
    return total;
  }

  private async publish(rows: OutboxRow[]): Promise<number> {
    let done = 0;
    for (const row of rows) {
      const key = String(row.id);
      this.unmarked.set(key, row);
      try {
        await this.bus.publish(row.subject, row.payload, {
          msgId: `docs-outbox-${row.id}`,
          onConsumed: () => {
            this.safe.push(row);
            this.markSoon();
          },
        });
      } catch (err) {
        this.unmarked.delete(key);
        this.log.warn({ err, outboxId: key, subject: row.subject }, 'bus publish failed; the relay retries later');
        break;
      }
      if (row.id > this.cursor) this.cursor = row.id;
      done++;
    }
    return done;
  }

  /** Marks what became safe within MARK_LINGER_MS in one statement, without a new claim. */
  private markSoon(): void {
    this.marking ??= setTimeout(() => {
      this.marking = undefined;
      this.markSafeInTurn().catch((err: unknown) => this.log.warn({ err }, 'marking published outbox rows failed; the next pass retries'));
    }, MARK_LINGER_MS);
  }

  /** markSafe once the mark before it finished; rows that became safe meanwhile go in the same statement. */
  private markSafeInTurn(): Promise<void> {
    const mark = this.lastMark.then(() => this.markSafe());
    this.lastMark = mark.catch(() => undefined);
    return mark;
  }

  private async markSafe(): Promise<void> {
    const rows = this.safe;
    this.safe = [];
    try {
      await this.outbox.markPublished(rows);
    } catch (err) {
      this.safe.unshift(...rows);
      throw err;
    }
    for (const row of rows) this.unmarked.delete(String(row.id));
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.poked = false;
      let failed = false;
      try {
        await this.drain({ sweep: Date.now() - this.lastSweep >= this.options.pollMs });
        await this.maybePrune();
      } catch (err) {
        failed = true;
        this.log.warn({ err }, 'outbox relay pass failed');
      }
      if (!this.running) return;
      if (failed || !this.poked) await this.sleep(this.options.pollMs);
    }
  }

  private async maybePrune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < HOUR) return;
    this.lastPrune = now;
    const pruned = await this.outbox.prune(new Date(now - (this.options.keepMs ?? 7 * 24 * HOUR)));
    if (pruned > 0) this.log.info({ pruned }, 'pruned published outbox rows');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
