import { AppError } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import { requireAdmin } from '../domain/access';
import { Decimal, isDecimalText, moneyText } from '../domain/money';
import { BASES, PRICED_KINDS } from '../domain/prices';
import type { PriceCache } from '../repo/price-cache';
import type { StoredPrice } from '../repo/price-repo';

export interface PriceView {
  kind: string;
  basis: string;
  unitPrice: string;
  updatedAt: string;
}

const view = (p: StoredPrice): PriceView => ({ kind: p.kind, basis: p.basis, unitPrice: moneyText(p.unitPrice), updatedAt: p.updatedAt.toISOString() });

export async function listPrices(deps: { prices: PriceCache }): Promise<PriceView[]> {
  return (await deps.prices.list()).map(view);
}

/** Admin: sets one price; the next admission uses it (this replica at once, other billing replicas within their price cache period). */
export async function setPrice(deps: { prices: PriceCache }, actor: Actor | undefined, p: { kind: string; basis: string; unitPrice: string }): Promise<PriceView> {
  requireAdmin(actor);
  if (!(PRICED_KINDS as readonly string[]).includes(p.kind)) throw AppError.field(['body', 'kind'], `must be one of ${PRICED_KINDS.join(', ')}`);
  if (!(BASES as readonly string[]).includes(p.basis)) throw AppError.field(['body', 'basis'], `must be one of ${BASES.join(', ')}`);
  if (!isDecimalText(p.unitPrice)) throw AppError.field(['body', 'unit_price'], 'must be a non-negative decimal with at most 6 decimal places');
  return view(await deps.prices.set(p.kind, p.basis, new Decimal(p.unitPrice)));
}
