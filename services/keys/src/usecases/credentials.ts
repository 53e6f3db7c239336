import { AppError } from '@tollgate/kit';
import type { Account, RotateTokenRequest, RotateTokenResponse, SetPasswordRequest } from '@tollgate/protos/keys';
import { accountToMsg } from '../domain/mappers';
import { checkPassword, hashPassword, passwordMatches } from '../domain/passwords';
import { newUserToken, sha256Hex } from '../domain/secrets';
import type { Account as AccountRow } from '../repo/prisma-types';
import { actorOf } from './access';
import type { KeysContext } from './context';

async function target(ctx: KeysContext, req: { actor?: RotateTokenRequest['actor']; accountId: number }, what: string): Promise<AccountRow> {
  const actor = actorOf(req.actor);
  const id = req.accountId > 0 ? req.accountId : actor.accountId;
  if (id !== actor.accountId && !actor.isAdmin) throw AppError.forbidden(`only an admin may ${what} of another user`);
  const row = await ctx.accounts.findById(id);
  if (!row) throw AppError.notFound(`user ${id} not found`);
  return row;
}

/**
 * Sets or (empty password) removes the console password. A user changing their own password
 * gives the current one when one is set; an admin does not. Other sessions of the account end.
 */
export async function setPassword(ctx: KeysContext, req: SetPasswordRequest): Promise<Account> {
  const row = await target(ctx, req, 'set the password');
  const actor = actorOf(req.actor);
  const self = row.id === actor.accountId;
  if (self && row.passwordHash && !actor.isAdmin && !(await passwordMatches(row.passwordHash, req.currentPassword))) {
    throw AppError.field(['body', 'current_password'], 'current_password is wrong');
  }
  const passwordHash = req.password === '' ? null : await hashPassword(checkPassword(req.password));
  const updated = await ctx.accounts.setPasswordHash(row.id, passwordHash);
  await ctx.sessions.deleteForAccount(row.id, self && req.keepSessionToken ? sha256Hex(req.keepSessionToken) : undefined);
  await ctx.events.changed('account', row.id, row.id);
  return accountToMsg(updated);
}

/**
 * A new user token, returned once; the old one stops working at once (its hash is replaced), and so
 * do the account's console sessions (one may have been opened with the leaked token), but the
 * caller's own session when the caller rotates their own token.
 */
export async function rotateToken(ctx: KeysContext, req: RotateTokenRequest): Promise<RotateTokenResponse> {
  const row = await target(ctx, req, 'reset the user token');
  const self = row.id === actorOf(req.actor).accountId;
  const token = newUserToken();
  const updated = await ctx.accounts.setToken(row.id, sha256Hex(token), token.slice(0, 7));
  await ctx.sessions.deleteForAccount(row.id, self && req.keepSessionToken ? sha256Hex(req.keepSessionToken) : undefined);
  await ctx.events.changed('account', row.id, row.id);
  return { account: accountToMsg(updated), token };
}
