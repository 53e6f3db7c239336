/**
 * `activity.recorded`: something an account did, recorded by the docs service's activity log.
 * Publish one with `recordActivity` (gateway: `gateway/src/activity/record-activity.ts`); the
 * event id makes a redelivered event count once. Never put a secret in any field.
 */
export interface ActivityEvent {
  /** Unique per event (a UUID). */
  id: string;
  user_id: number;
  /** e.g. document.created, key.deleted, config.updated, user.signed_in, token.rotated, webhook.created */
  type: string;
  target_type: string;
  target_id: string;
  /** ISO 8601 instant. */
  at: string;
  ip: string;
  user_agent: string;
  summary: string;
}
export const ACTIVITY_SUBJECT = 'activity.recorded';
