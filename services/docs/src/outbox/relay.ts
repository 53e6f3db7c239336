import type { EventBus, Logger } from '@tollgate/kit';
import type { OutboxRepo, OutboxRow } from '../repo/outbox-repo';

export interface RelayOptions {
  pollMs: number;
  batch: number;
  /** Published rows older than this are pruned (checked at most hourly). */
  keepMs?: number;
}

const HOUR = 3_600_000;

/**
 * Publishes the outbox to the bus in id order and marks what the bus stored. Woken by `poke()`
 * after each commit and by a timer otherwise, so events written while the bus was down go out
 * once it is back. Each row is published with msgId `docs-outbox-<id>`, so a row published
 * again after a crash between publish and mark is stored once by the bus.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private poked = false;
  private lastPrune = 0;

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
  }

  /** Publishes until the outbox is empty or the bus fails; returns how many rows went out. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { claimed, published } = await this.outbox.claim(this.options.batch, (rows) => this.publish(rows));
      total += published;
      if (published < claimed) throw new Error(`bus refused outbox events after ${published} of ${claimed}`);
      if (claimed < this.options.batch) return total;
    }
  }

  private async publish(rows: OutboxRow[]): Promise<number> {
    let done = 0;
    for (const row of rows) {
      try {
        await this.bus.publish(row.subject, row.payload, { msgId: `docs-outbox-${row.id}` });
      } catch (err) {
        this.log.warn({ err, outboxId: String(row.id), subject: row.subject }, 'bus publish failed; the relay retries later');
        break;
      }
      done++;
    }
    return done;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.poked = false;
      let failed = false;
      try {
        await this.drain();
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
