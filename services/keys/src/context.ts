import type { EventBus, Logger } from '@tollgate/kit';
import type { KeysDb } from './db';
import { ChangePublisher } from './domain/events';
import { AccountRepo } from './repo/account-repo';
import { KeyRepo } from './repo/key-repo';
import { activityRecorder, type KeysContext } from './usecases/context';

export function createKeysContext(db: KeysDb, bus: EventBus, log: Logger): KeysContext {
  const accounts = new AccountRepo(db);
  return {
    accounts,
    keys: new KeyRepo(db),
    events: new ChangePublisher(bus, log),
    log,
    now: () => new Date(),
    touch: activityRecorder(accounts, log),
  };
}
