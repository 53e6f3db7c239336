import type { CreateAccountRequest, CreateAccountResponse } from '@tollgate/protos/keys';
import { checkEmail, checkLevel, checkName, checkPermissions, defaultPermissions, permissionsToJson } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import { newUserToken, sha256Hex } from '../domain/secrets';
import { checkPassword, hashPassword } from '../domain/passwords';
import { isUniqueViolation, requireAdmin } from './access';
import { emailTaken, validUntilOf } from './account-fields';
import type { KeysContext } from './context';

/** Admin only. The user's token is returned here once; only its hash is kept. */
export async function createAccount(ctx: KeysContext, req: CreateAccountRequest): Promise<CreateAccountResponse> {
  requireAdmin(req.actor);
  const name = checkName(req.name);
  const email = checkEmail(req.email);
  const level = checkLevel(req.level || 'free');
  const permissions = checkPermissions(req.permissions ?? defaultPermissions());
  const validUntil = validUntilOf(req.validUntil);
  const passwordHash = req.password ? await hashPassword(checkPassword(req.password)) : null;
  const token = newUserToken();
  try {
    const row = await ctx.accounts.create({ name, email, level, permissions: permissionsToJson(permissions), tokenHash: sha256Hex(token), tokenPrefix: token.slice(0, 7), validUntil, passwordHash });
    return { account: accountToMsg(row), token };
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
}
