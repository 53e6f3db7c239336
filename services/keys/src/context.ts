import type { EventBus, Logger } from '@tollgate/kit';
import type { KeysDb } from './db';
import { ChangePublisher } from './domain/events';
import { AccountRepo } from './repo/account-repo';
import { KeyRepo } from './repo/key-repo';
import { SessionRepo } from './repo/session-repo';
import { activityRecorder, type KeysContext, type QuotaHolder } from './usecases/context';

export function createKeysContext(db: KeysDb, bus: EventBus, log: Logger, quotas: QuotaHolder, opts: { sessionTtlMs?: number } = {}): KeysContext {
  const accounts = new AccountRepo(db);
  return {
    quotas,
    accounts,
    keys: new KeyRepo(db),
    sessions: new SessionRepo(db),
    sessionTtlMs: opts.sessionTtlMs ?? 12 * 3600_000,
    events: new ChangePublisher(bus, log),
    log,
    now: () => new Date(),
    touch: activityRecorder(accounts, log),
  };
}
