import { AppError } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import { accountFor } from '../domain/access';
import { Decimal, moneyText } from '../domain/money';
import { monthRange } from '../domain/periods';
import type { BillLineRow, LedgerRepo } from '../repo/ledger-repo';

export interface BillView {
  accountId: number;
  month: string;
  frozen: boolean;
  total: string;
  generatedAt: string;
  lines: Array<{ kind: string; appId: string; apiKeyId: number; count: number; amount: string }>;
}

const view = (accountId: number, month: string, frozen: boolean, total: Decimal, lines: BillLineRow[], at: Date): BillView => ({
  accountId,
  month,
  frozen,
  total: moneyText(total),
  generatedAt: at.toISOString(),
  lines: lines.map((l) => ({ kind: l.kind, appId: l.appId, apiKeyId: l.apiKeyId, count: l.count, amount: moneyText(l.amount) })),
});

/**
 * An account's bill for a UTC month: charges from the ledger by kind, app and key. Computed on
 * demand until the month (plus a grace period for settlements in flight) is over; then stored
 * on first read and served unchanged from then on.
 */
export async function getBill(deps: { ledger: LedgerRepo; freezeGraceSeconds: number }, q: { actor: Actor | undefined; accountId: number; month: string }, now = new Date()): Promise<BillView> {
  const accountId = accountFor(q.actor, q.accountId);
  const { start, end } = monthRange(q.month);
  if (start > now) throw AppError.field(['path', 'month'], 'is in the future');
  const closed = now.getTime() >= end.getTime() + deps.freezeGraceSeconds * 1000;
  if (closed) {
    const stored = await deps.ledger.frozenBill(accountId, q.month);
    if (stored) return view(accountId, q.month, true, stored.total, stored.lines, stored.frozenAt);
  }
  const lines = await deps.ledger.chargesByLine(accountId, start, end);
  const total = lines.reduce((sum, l) => sum.plus(l.amount), new Decimal(0));
  if (!closed) return view(accountId, q.month, false, total, lines, now);
  const frozen = await deps.ledger.freeze(accountId, q.month, total, lines);
  return view(accountId, q.month, true, frozen.total, frozen.lines, frozen.frozenAt);
}
