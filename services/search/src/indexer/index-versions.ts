import type { Logger } from '@tollgate/kit';
import type { IndexStateRepo } from './index-state-repo';

/** Where the indexer keeps the last version applied per document. */
export interface VersionStore {
  version(documentId: number): Promise<number | undefined>;
  record(documentId: number, version: number): Promise<void>;
  recordMany(entries: Array<{ id: number; version: number }>): Promise<void>;
}

export interface IndexVersionsOptions {
  /**
   * Write recorded versions in batches shortly after instead of once per event. Safe only when
   * the index does not outlive the process (the embedded engine): its index and these versions
   * are rebuilt together at start, so a version lost in a crash is re-established by the rebuild.
   */
  writeBehind: boolean;
  flushMs?: number;
  maxPending?: number;
}

/**
 * The applied versions in memory, loaded once from `indexed_documents` at start, so applying an
 * event needs no read from the database; writes go through to the table (or, with writeBehind,
 * in one multi-row upsert per batch, never lowering a version). Only one indexer per durable
 * consumer writes the table, so the memory copy stays exact.
 */
export class IndexVersions implements VersionStore {
  private readonly known = new Map<number, number>();
  private pending = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: IndexStateRepo,
    private readonly log: Logger,
    private readonly options: IndexVersionsOptions,
  ) {}

  async load(): Promise<number> {
    for (const { id, version } of await this.repo.all()) this.known.set(id, version);
    return this.known.size;
  }

  async version(documentId: number): Promise<number | undefined> {
    return this.known.get(documentId);
  }

  async record(documentId: number, version: number): Promise<void> {
    this.remember(documentId, version);
    if (!this.options.writeBehind) return this.repo.record(documentId, version);
    this.pending.set(documentId, Math.max(version, this.pending.get(documentId) ?? 0));
    if (this.pending.size >= (this.options.maxPending ?? 1_000)) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.flushMs ?? 100);
      this.timer.unref();
    }
  }

  async recordMany(entries: Array<{ id: number; version: number }>): Promise<void> {
    for (const e of entries) this.remember(e.id, e.version);
    await this.repo.recordMany(entries);
  }

  /** Writes every pending version; resolves when they are in the table (a failure is logged and retried at the next flush). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return this.writing;
    const batch = [...this.pending].map(([id, version]) => ({ id, version }));
    this.pending = new Map();
    this.writing = this.writing.then(() =>
      this.repo.recordMany(batch).catch((err: unknown) => {
        this.log.error({ err, versions: batch.length }, 'index versions not written; kept for the next flush');
        for (const e of batch) this.pending.set(e.id, Math.max(e.version, this.pending.get(e.id) ?? 0));
      }),
    );
    return this.writing;
  }

  private remember(id: number, version: number): void {
    if (version > (this.known.get(id) ?? 0)) this.known.set(id, version);
  }
}
