import type { Actor } from '@tollgate/protos/common';
import { accountFor } from '../domain/access';
import { Decimal, moneyText } from '../domain/money';
import { usageRange } from '../domain/periods';
import type { LedgerRepo } from '../repo/ledger-repo';
import type { UsageRepo } from '../repo/usage-repo';

export interface UsageQuery {
  actor: Actor | undefined;
  accountId: number;
  apiKeyId: number;
  from: string;
  to: string;
}

/** Charges of an account (or one of its keys) per UTC day and kind over a time range. */
export async function queryUsage(deps: { ledger: LedgerRepo; usage: UsageRepo }, q: UsageQuery) {
  let accountId = accountFor(q.actor, q.accountId);
  const range = usageRange(q.from, q.to);
  if (q.apiKeyId && q.actor?.isAdmin && !q.accountId) {
    const key = await deps.usage.find(q.apiKeyId);
    if (key) accountId = key.accountId;
  }
  // Another account's key filters this account's charges to nothing, as an id no key has: the answer never tells them apart.
  const rows = await deps.ledger.chargesByDay(accountId, q.apiKeyId, range.from, range.to);
  const total = rows.reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
  return {
    accountId,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    total: moneyText(total),
    rows: rows.map((r) => ({ day: r.day, kind: r.kind, count: r.count, amount: moneyText(r.amount) })),
  };
}
