import { ACTIVITY_SUBJECT, type ActivityEvent, type EventBus, type Logger, type Subscription } from '@tollgate/kit';
import type { ActivityRepo } from './activity-repo';
import { addEventCounts } from './rollups';
import type { DocsDb } from '../db';

/**
 * Stores every `activity.recorded` event (at-least-once delivery; the event id keeps one row).
 * `user.created` also counts as a new account in the users analytics.
 */
export function consumeActivity(bus: EventBus, durable: string, repo: ActivityRepo, db: DocsDb, log: Logger): Promise<Subscription> {
  return bus.subscribe<ActivityEvent>({
    durable,
    subjects: ACTIVITY_SUBJECT,
    handler: async (m) => {
      const e = m.data;
      if (!e || typeof e.id !== 'string' || typeof e.type !== 'string') {
        log.warn({ subject: m.subject }, 'activity event without id or type ignored');
        return;
      }
      const fresh = await repo.record(e);
      if (fresh && e.type === 'user.created') {
        const target = Number(e.target_id);
        await addEventCounts(db, [{ metric: 'account.created', accountId: Number.isInteger(target) ? target : 0, atMs: Date.parse(e.at) || Date.now(), dim: '', count: 1 }]);
      }
    },
  });
}
