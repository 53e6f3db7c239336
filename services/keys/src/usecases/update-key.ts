import { AppError } from '@tollgate/kit';
import type { ApiKey, UpdateKeyRequest } from '@tollgate/protos/keys';
import { checkName, checkStatus } from '../domain/account-rules';
import { keyToMsg } from '../domain/mappers';
import { QUOTA_PATTERN, quotaOrThrow, toMicros } from '../domain/quota';
import { time14OrThrow } from '../domain/time14';
import type { KeyChanges } from '../repo/key-repo';
import { ownedKey } from './access';
import type { KeysContext } from './context';
import { checkComments, checkGroup, checkLimit } from './key-fields';

function quotaChange(quota: string, usedQuota: string): string | null {
  if (quota === '') return null;
  quotaOrThrow(quota);
  if (QUOTA_PATTERN.test(usedQuota) && toMicros(quota) < toMicros(usedQuota)) {
    throw AppError.field(['body', 'quota'], `quota ${quota} is below the quota already used or reserved by executions under way (${usedQuota})`, 'less_than_used');
  }
  return quota;
}

/**
 * Changes the fields given: name, group, comments, status (启用/禁用), quota ('' = unlimited; never
 * below `used_quota`), expired_time ('' = never; a past time expires the key now), rpm/concurrency limits.
 */
export async function updateKey(ctx: KeysContext, req: UpdateKeyRequest): Promise<ApiKey> {
  const key = await ownedKey(ctx, req.actor, req.apiKeyId);
  const changes: KeyChanges = {};
  if (req.name !== undefined) changes.name = checkName(req.name);
  if (req.group !== undefined) changes.group = checkGroup(req.group);
  if (req.comments !== undefined) changes.comments = checkComments(req.comments);
  if (req.status !== undefined) changes.status = checkStatus(req.status);
  if (req.quota !== undefined) changes.quota = quotaChange(req.quota, req.usedQuota);
  if (req.expiredTime !== undefined) changes.expiresAt = req.expiredTime === '' ? null : time14OrThrow(req.expiredTime, 'expired_time');
  const rpm = checkLimit(req.rpmLimit, 'rpm_limit');
  if (rpm !== undefined) changes.rpmLimit = rpm;
  const concurrency = checkLimit(req.concurrencyLimit, 'concurrency_limit');
  if (concurrency !== undefined) changes.concurrencyLimit = concurrency;

  const row = await ctx.keys.update(key.id, changes);
  await ctx.events.changed('key', row.id, row.accountId);
  return keyToMsg(row);
}
