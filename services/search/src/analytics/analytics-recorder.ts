import type { Logger } from '@tollgate/kit';
import type { AnalyticsRepo, QueryRecord } from './analytics-repo';

export interface RecorderOptions {
  /** Records written in one INSERT at most. */
  maxBatch: number;
  /** How long a record may wait for others before it is written. */
  delayMs: number;
  /** Records held while the database is slow or down; beyond this the oldest are dropped (logged). */
  maxBuffered: number;
}

export const DEFAULT_RECORDER_OPTIONS: RecorderOptions = { maxBatch: 500, delayMs: 200, maxBuffered: 20_000 };

/**
 * Search analytics off the query's path: `record` only buffers; the buffer is written in one
 * multi-row INSERT when it holds `maxBatch` records or `delayMs` after its first record, and on
 * `flush` (before an analytics report, and at stop). A failed write is logged and its records
 * dropped: analytics never fail or slow a search.
 */
export class AnalyticsRecorder {
  private buffer: QueryRecord[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: AnalyticsRepo,
    private readonly log: Logger,
    private readonly options: RecorderOptions = DEFAULT_RECORDER_OPTIONS,
  ) {}

  record(r: QueryRecord): void {
    if (this.buffer.length >= this.options.maxBuffered) {
      this.buffer.shift();
      this.log.warn({ maxBuffered: this.options.maxBuffered }, 'search analytics buffer full; oldest record dropped');
    }
    this.buffer.push(r);
    if (this.buffer.length >= this.options.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.delayMs);
      this.timer.unref();
    }
  }

  /** Writes everything recorded so far; resolves when it is in the database (or its failure logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.options.maxBatch);
      this.writing = this.writing.then(() => this.repo.recordMany(batch).catch((err: unknown) => this.log.error({ err, records: batch.length }, 'search analytics not recorded')));
    }
    return this.writing;
  }
}
