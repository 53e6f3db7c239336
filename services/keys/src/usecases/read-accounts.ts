import { AppError } from '@tollgate/kit';
import type { Account, GetAccountRequest, ListAccountsRequest, ListAccountsResponse } from '@tollgate/protos/keys';
import { checkLevel, checkStatus } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import { actorOf, paging, requireAdmin } from './access';
import type { KeysContext } from './context';

/** Admin only: every account that is not deleted, by id. */
export async function listAccounts(ctx: KeysContext, req: ListAccountsRequest): Promise<ListAccountsResponse> {
  requireAdmin(req.actor);
  const { page, pageSize, skip } = paging(req.page);
  const filter = { status: req.status ? checkStatus(req.status) : undefined, level: req.level ? checkLevel(req.level) : undefined };
  const { items, total } = await ctx.accounts.list(filter, skip, pageSize);
  return { items: items.map(accountToMsg), page: { page, pageSize, total } };
}

/** Admin: any account; a user: only their own. */
export async function getAccount(ctx: KeysContext, req: GetAccountRequest): Promise<Account> {
  const actor = actorOf(req.actor);
  if (!actor.isAdmin && actor.accountId !== req.accountId) throw AppError.forbidden('you may only read your own profile');
  const row = await ctx.accounts.findById(req.accountId);
  if (!row) throw AppError.notFound(`user ${req.accountId} not found`);
  return accountToMsg(row);
}
