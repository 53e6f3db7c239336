import type { BillingDb } from '../db';
import type { PriceRow } from '../domain/prices';
import type { Decimal } from '../domain/money';

export interface StoredPrice extends PriceRow {
  updatedAt: Date;
}

/** The price table; read on every admission, so a change applies at once on every replica. */
export class PriceRepo {
  constructor(private readonly db: BillingDb) {}

  list(): Promise<StoredPrice[]> {
    return this.db.price.findMany({ orderBy: [{ kind: 'asc' }, { basis: 'asc' }] });
  }

  forKind(kind: string): Promise<StoredPrice[]> {
    return this.db.price.findMany({ where: { kind } });
  }

  set(kind: string, basis: string, unitPrice: Decimal): Promise<StoredPrice> {
    return this.db.price.upsert({
      where: { kind_basis: { kind, basis } },
      create: { kind, basis, unitPrice },
      update: { unitPrice, updatedAt: new Date() },
    });
  }
}
