import { AppError } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';

/** The account a caller may read: its own, or any when admin. Another account's data is a 403. */
export function accountFor(actor: Actor | undefined, requested: number): number {
  if (!actor || (!actor.accountId && !actor.isAdmin)) throw AppError.unauthenticated('caller is not authenticated');
  if (!requested || requested === actor.accountId) return actor.accountId;
  if (actor.isAdmin) return requested;
  throw AppError.forbidden("another account's billing data is not visible to this account");
}

export function requireAdmin(actor: Actor | undefined): void {
  if (!actor) throw AppError.unauthenticated('caller is not authenticated');
  if (!actor.isAdmin) throw AppError.forbidden('only an administrator may change prices');
}
