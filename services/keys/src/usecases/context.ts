import type { Logger } from '@tollgate/kit';
import type { AccountRepo } from '../repo/account-repo';
import type { KeyRepo } from '../repo/key-repo';
import type { SessionRepo } from '../repo/session-repo';
import type { ChangePublisher } from '../domain/events';

/** Where a key's quota is enforced (billing): a new quota is set there first, under the lock admissions take. */
export interface QuotaHolder {
  /** Refused (INVALID_ARGUMENT at body.quota) below used + reserved, unless `force`. '' = unlimited. */
  set(apiKeyId: number, accountId: number, quota: string, force: boolean): Promise<void>;
}

/** What every use case is given: the repositories, the change publisher, a clock and the activity recorder. */
export interface KeysContext {
  quotas: QuotaHolder;
  accounts: AccountRepo;
  keys: KeyRepo;
  sessions: SessionRepo;
  /** How long a console session lasts. */
  sessionTtlMs: number;
  events: ChangePublisher;
  log: Logger;
  now(): Date;
  /** Records account activity; throttled to one write a minute per account; never fails. */
  touch(accountId: number): Promise<void>;
}

export function activityRecorder(accounts: AccountRepo, log: Logger): (accountId: number) => Promise<void> {
  const last = new Map<number, number>();
  return async (accountId) => {
    const now = Date.now();
    if (now - (last.get(accountId) ?? 0) < 60_000) return;
    if (last.size > 100_000) last.clear();
    last.set(accountId, now);
    await accounts.touch(accountId).catch((err: unknown) => log.warn({ err, accountId }, 'could not record account activity'));
  };
}
