import type { PriceRepo, StoredPrice } from './price-repo';
import type { Decimal } from '../domain/money';

/**
 * The price table in memory for admissions: read once per `ttlMs`, dropped at once when this
 * replica sets a price (another billing replica sees the change within `ttlMs`).
 */
export class PriceCache {
  private byKind = new Map<string, StoredPrice[]>();
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly repo: PriceRepo,
    private readonly ttlMs: number,
  ) {}

  async forKind(kind: string): Promise<StoredPrice[]> {
    if (Date.now() - this.loadedAt >= this.ttlMs) await this.reload();
    return this.byKind.get(kind) ?? [];
  }

  list(): Promise<StoredPrice[]> {
    return this.repo.list();
  }

  async set(kind: string, basis: string, unitPrice: Decimal): Promise<StoredPrice> {
    const stored = await this.repo.set(kind, basis, unitPrice);
    this.loadedAt = 0;
    return stored;
  }

  private reload(): Promise<void> {
    this.loading ??= this.repo
      .list()
      .then((rows) => {
        const byKind = new Map<string, StoredPrice[]>();
        for (const r of rows) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
        this.byKind = byKind;
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
