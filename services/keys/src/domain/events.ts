import { keyChangedSubject, type EventBus, type KeyChangedEvent, type Logger } from '@tollgate/kit';

/** Tells every cache (gateways) that a key or an account changed; called after the change committed. */
export class ChangePublisher {
  constructor(private readonly bus: EventBus, private readonly log: Logger) {}

  async changed(entity: KeyChangedEvent['entity'], id: number, accountId: number): Promise<void> {
    const event: KeyChangedEvent = { entity, id, account_id: accountId, at: new Date().toISOString() };
    try {
      await this.bus.publish(keyChangedSubject(entity, id), event);
    } catch (err) {
      this.log.error({ err, entity, id }, 'could not publish keys.changed; caches keep the old entry until their TTL ends');
    }
  }
}
