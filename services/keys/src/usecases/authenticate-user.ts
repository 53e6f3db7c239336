import { AppError } from '@tollgate/kit';
import type { Account } from '@tollgate/protos/keys';
import { ENABLED } from '../domain/account-rules';
import { accountToMsg } from '../domain/mappers';
import { sameHash, sha256Hex } from '../domain/secrets';
import type { KeysContext } from './context';

/** User token → its account: unknown or deleted → UNAUTHENTICATED; 禁用 → PERMISSION_DENIED. */
export async function authenticateUser(ctx: KeysContext, token: string): Promise<Account> {
  if (token.length === 0 || token.length > 256) throw AppError.unauthenticated('invalid user token');
  const hash = sha256Hex(token);
  const account = await ctx.accounts.findByTokenHash(hash);
  if (!account || !sameHash(account.tokenHash, hash)) throw AppError.unauthenticated('invalid user token');
  if (account.status !== ENABLED) throw AppError.forbidden(`account is ${account.status}`);
  await ctx.touch(account.id);
  return accountToMsg(account);
}
