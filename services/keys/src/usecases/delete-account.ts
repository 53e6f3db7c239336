import { AppError, ErrorCode } from '@tollgate/kit';
import type { Account, GetAccountRequest } from '@tollgate/protos/keys';
import { BOOTSTRAP_ROLE } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import { requireAdmin } from './access';
import type { KeysContext } from './context';

/** Admin only. The account's token stops working and all its keys are disabled at once (caches too). */
export async function deleteAccount(ctx: KeysContext, req: GetAccountRequest): Promise<Account> {
  requireAdmin(req.actor);
  const row = await ctx.accounts.findById(req.accountId);
  if (!row) throw AppError.notFound(`user ${req.accountId} not found`);
  if (row.systemRole === BOOTSTRAP_ROLE) throw new AppError(ErrorCode.FailedPrecondition, 'the bootstrap admin cannot be deleted');
  const { account, keyIds } = await ctx.accounts.softDelete(row.id);
  await ctx.events.changed('account', row.id, row.id);
  for (const id of keyIds) await ctx.events.changed('key', id, row.id);
  return accountToMsg(account);
}
