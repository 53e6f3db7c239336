import { AppError, ErrorCode } from '@tollgate/kit';
import type { Account, UpdateAccountRequest } from '@tollgate/protos/keys';
import { BOOTSTRAP_ROLE, checkEmail, checkLevel, checkName, checkPermissions, checkStatus, DISABLED, permissionsToJson } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import type { AccountChanges } from '../repo/account-repo';
import { actorOf, isUniqueViolation } from './access';
import { emailTaken, validUntilOf } from './account-fields';
import type { KeysContext } from './context';

/**
 * Admin: every field. A user: their own name and email only (level, status, permissions and
 * valid_until are the admin's). The bootstrap admin can never be disabled or lose admin.
 */
export async function updateAccount(ctx: KeysContext, req: UpdateAccountRequest): Promise<Account> {
  const actor = actorOf(req.actor);
  if (!actor.isAdmin && actor.accountId !== req.accountId) throw AppError.forbidden('you may only update your own profile');
  const adminFields = (['level', 'status', 'permissions', 'validUntil'] as const).filter((f) => req[f] !== undefined);
  if (!actor.isAdmin && adminFields.length > 0) throw AppError.forbidden('only an admin may change level, status, permissions or valid_until');
  const row = await ctx.accounts.findById(req.accountId);
  if (!row) throw AppError.notFound(`user ${req.accountId} not found`);

  const changes: AccountChanges = {};
  if (req.name !== undefined) changes.name = checkName(req.name);
  if (req.email !== undefined) changes.email = checkEmail(req.email);
  if (req.level !== undefined) changes.level = checkLevel(req.level);
  if (req.status !== undefined) changes.status = checkStatus(req.status);
  if (req.validUntil !== undefined) changes.validUntil = validUntilOf(req.validUntil);
  const permissions = req.permissions ? checkPermissions(req.permissions) : undefined;
  if (permissions) changes.permissions = permissionsToJson(permissions);
  if (row.systemRole === BOOTSTRAP_ROLE && (changes.status === DISABLED || permissions?.admin === false || changes.validUntil)) {
    throw new AppError(ErrorCode.FailedPrecondition, 'the bootstrap admin cannot be disabled, given an end date or lose admin permission');
  }
  try {
    const updated = await ctx.accounts.update(row.id, changes);
    await ctx.events.changed('account', row.id, row.id);
    return accountToMsg(updated);
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
}
