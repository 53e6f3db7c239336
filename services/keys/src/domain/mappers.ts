import type { Account as AccountMsg, ApiKey as ApiKeyMsg } from '@tollgate/protos/keys';
import type { Account, ApiKey } from '../repo/prisma-types';
import { BOOTSTRAP_ROLE, permissionsFromJson } from './account-rules';
import { normalizeDecimal } from './quota';
import { displayKey } from './secrets';
import { toTime14 } from './time14';

export function accountToMsg(a: Account): AccountMsg {
  return {
    id: a.id,
    name: a.name,
    email: a.email ?? '',
    level: a.level,
    status: a.status,
    permissions: permissionsFromJson(a.permissions),
    validUntil: a.validUntil?.toISOString() ?? '',
    createdAt: a.createdAt.toISOString(),
    lastActiveAt: a.lastActiveAt?.toISOString() ?? '',
    bootstrap: a.systemRole === BOOTSTRAP_ROLE,
    hasPassword: a.passwordHash !== null,
  };
}

/** A key as shown after creation: the display prefix, never the secret (`fullKey` only at creation). */
export function keyToMsg(k: ApiKey, fullKey?: string): ApiKeyMsg {
  return {
    id: k.id,
    accountId: k.accountId,
    name: k.name,
    key: fullKey ?? displayKey(k.keyPrefix),
    channel: k.channel,
    group: k.group,
    quota: k.quota === null ? '' : normalizeDecimal(k.quota.toFixed(6)),
    usedQuota: '',
    createdTime: toTime14(k.createdAt),
    expiredTime: k.expiresAt ? toTime14(k.expiresAt) : '',
    status: k.status,
    comments: k.comments,
    allowedKinds: k.allowedKinds,
    rpmLimit: k.rpmLimit ?? 0,
    concurrencyLimit: k.concurrencyLimit ?? 0,
  };
}
