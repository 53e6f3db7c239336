import { AppError } from '@tollgate/kit';
import type { CreateKeyRequest, CreateKeyResponse } from '@tollgate/protos/keys';
import { checkName, ENABLED } from '../domain/account-rules';
import { parseChannel } from '../domain/channel';
import { keyToMsg } from '../domain/mappers';
import { quotaOrThrow } from '../domain/quota';
import { KEY_PREFIX_LENGTH, newApiKey, sha256Hex } from '../domain/secrets';
import { time14OrThrow } from '../domain/time14';
import { ownerOf } from './access';
import type { KeysContext } from './context';
import { checkComments, checkGroup, checkLimit } from './key-fields';

/** Creates a key for an account that exists, is 启用 and within its validity; the secret is returned only here. */
export async function createKey(ctx: KeysContext, req: CreateKeyRequest): Promise<CreateKeyResponse> {
  const accountId = ownerOf(req.actor, req.accountId);
  const account = await ctx.accounts.findById(accountId);
  if (!account) throw AppError.notFound(`account ${accountId} not found`);
  const now = ctx.now();
  if (account.status !== ENABLED) throw AppError.forbidden(`account is ${account.status}: no keys can be created for it`);
  if (account.validUntil && account.validUntil <= now) throw AppError.forbidden('account validity has ended: no keys can be created for it');

  const name = checkName(req.name);
  const { channel, allowedKinds } = parseChannel(req.channel);
  const group = req.group === '' ? 'default' : checkGroup(req.group);
  const quota = req.quota === undefined || req.quota === '' ? null : quotaOrThrow(req.quota);
  const expiresAt = req.expiredTime ? time14OrThrow(req.expiredTime, 'expired_time') : null;
  if (expiresAt && expiresAt <= now) throw AppError.field(['body', 'expired_time'], 'expired_time must be in the future', 'datetime_past');
  const comments = checkComments(req.comments);

  const secret = newApiKey();
  const row = await ctx.keys.create({
    accountId,
    name,
    keyHash: sha256Hex(secret),
    keyPrefix: secret.slice(0, KEY_PREFIX_LENGTH),
    channel,
    group,
    allowedKinds,
    quota,
    expiresAt,
    comments,
    rpmLimit: checkLimit(req.rpmLimit, 'rpm_limit') ?? null,
    concurrencyLimit: checkLimit(req.concurrencyLimit, 'concurrency_limit') ?? null,
  });
  await ctx.events.changed('key', row.id, accountId);
  return { key: keyToMsg(row, secret) };
}
