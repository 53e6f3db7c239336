import { AppError, TASK_KINDS } from '@tollgate/kit';
import type { AuthenticateKeyRequest, AuthenticateKeyResponse } from '@tollgate/protos/keys';
import { ENABLED, permissionsFromJson } from '../domain/account-rules';
import { PASSTHROUGH } from '../domain/channel';
import { accountToMsg, keyToMsg } from '../domain/mappers';
import { API_KEY_PATTERN, sameHash, sha256Hex } from '../domain/secrets';
import type { KeysContext } from './context';

const KNOWN_KINDS: readonly string[] = [...TASK_KINDS, PASSTHROUGH];

/**
 * The spec's checks 1–5, in order: format; existence; key status 启用; account valid (not deleted,
 * within valid_until); account status 启用, account permission for the kind, key channel allows
 * the kind. Check 6 (quota) belongs to billing; check 7 (expiry) is returned as `expired`.
 */
export async function authenticateKey(ctx: KeysContext, req: AuthenticateKeyRequest): Promise<AuthenticateKeyResponse> {
  if (!API_KEY_PATTERN.test(req.key)) throw AppError.unauthenticated('invalid API key format: expected ak- followed by 32 characters');
  const hash = sha256Hex(req.key);
  const row = await ctx.keys.findByHash(hash);
  if (!row || !sameHash(row.keyHash, hash)) throw AppError.unauthenticated('invalid API key');
  if (row.status !== ENABLED) throw AppError.forbidden(`API key status is ${row.status}: only 启用 allows use`);

  const { account } = row;
  const now = ctx.now();
  if (account.deletedAt) throw AppError.forbidden('the account of this API key has been deleted');
  if (account.validUntil && account.validUntil <= now) throw AppError.forbidden(`the account of this API key expired at ${account.validUntil.toISOString()}`);

  if (account.status !== ENABLED) throw AppError.forbidden(`the account of this API key is ${account.status}`);
  if (req.kind) {
    if (!KNOWN_KINDS.includes(req.kind)) throw AppError.forbidden(`unknown interface "${req.kind}"`);
    const permissions = permissionsFromJson(account.permissions);
    if (req.kind !== PASSTHROUGH && !permissions.kinds.includes(req.kind)) throw AppError.forbidden(`the account has no permission to run ${req.kind} tasks`);
    if (!row.allowedKinds.includes(req.kind)) {
      throw AppError.forbidden(req.kind === PASSTHROUGH ? `a ${row.channel} key cannot call the provider passthrough` : `a ${row.channel} key cannot run ${req.kind} tasks`);
    }
  }

  await ctx.touch(account.id);
  return { key: keyToMsg(row), account: accountToMsg(account), expired: row.expiresAt !== null && row.expiresAt <= now };
}
