import type { ApiKey, UpdateKeyRequest } from '@tollgate/protos/keys';
import { checkName, checkStatus } from '../domain/account-rules';
import { keyToMsg } from '../domain/mappers';
import { normalizeDecimal, quotaOrThrow } from '../domain/quota';
import { time14OrThrow } from '../domain/time14';
import type { KeyChanges } from '../repo/key-repo';
import { ownedKey } from './access';
import type { KeysContext } from './context';
import { checkComments, checkGroup, checkLimit } from './key-fields';

const quotaText = (quota: { toFixed(digits: number): string } | null): string => (quota === null ? '' : normalizeDecimal(quota.toFixed(6)));

function quotaChange(quota: string): string | null {
  if (quota === '') return null;
  quotaOrThrow(quota);
  return quota;
}

/**
 * Changes the fields given: name, group, comments, status (启用/禁用), quota ('' = unlimited; never
 * below used + reserved), expired_time ('' = never; a past time expires the key now), rpm/concurrency limits.
 * A new quota is set at billing first, which refuses it below what the key has used and reserved
 * under the lock its admissions take, and holds it against callers that still have the old one
 * cached; if this write then fails, billing gets the old quota back.
 */
export async function updateKey(ctx: KeysContext, req: UpdateKeyRequest): Promise<ApiKey> {
  const key = await ownedKey(ctx, req.actor, req.apiKeyId);
  const changes: KeyChanges = {};
  if (req.name !== undefined) changes.name = checkName(req.name);
  if (req.group !== undefined) changes.group = checkGroup(req.group);
  if (req.comments !== undefined) changes.comments = checkComments(req.comments);
  if (req.status !== undefined) changes.status = checkStatus(req.status);
  if (req.quota !== undefined) changes.quota = quotaChange(req.quota);
  if (req.expiredTime !== undefined) changes.expiresAt = req.expiredTime === '' ? null : time14OrThrow(req.expiredTime, 'expired_time');
  const rpm = checkLimit(req.rpmLimit, 'rpm_limit');
  if (rpm !== undefined) changes.rpmLimit = rpm;
  const concurrency = checkLimit(req.concurrencyLimit, 'concurrency_limit');
  if (concurrency !== undefined) changes.concurrencyLimit = concurrency;

  const quota = changes.quota;
  const row =
    quota === undefined
      ? await ctx.keys.update(key.id, changes)
      : // Under the key's row lock: billing's quota and this row's change in the same order as any other update's.
        await ctx.keys.updateLocked(key.id, changes, async (current, write) => {
          await ctx.quotas.set(key.id, key.accountId, quota ?? '', false);
          try {
            return await write();
          } catch (err) {
            await ctx.quotas.set(key.id, key.accountId, quotaText(current.quota), true).catch((e: unknown) => ctx.log.error({ err: e, apiKeyId: key.id }, 'the quota billing holds could not be put back after a failed key update'));
            throw err;
          }
        });
  await ctx.events.changed('key', row.id, row.accountId);
  return keyToMsg(row);
}
