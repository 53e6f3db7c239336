import { AppError, TaskStatus, type DocumentEvent } from '@tollgate/kit';

/** Every event a subscription may ask for; `"*"` means all of them. */
export const WEBHOOK_EVENTS = [
  'document.created',
  'document.updated',
  'document.deleted',
  'document.restored',
  'task.completed',
  'task.failed',
  'task.cancelled',
  'ping',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
export const ALL_EVENTS = '*';

const MAX_EVENTS = WEBHOOK_EVENTS.length + 1;

/** The event list of a subscription: known names or `"*"`, at least one, each once (422 otherwise). */
export function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw AppError.field(['body', 'events'], 'events must name at least one event (or "*")', 'too_short');
  if (events.length > MAX_EVENTS * 2) throw AppError.field(['body', 'events'], 'too many events', 'too_long');
  const unknown = events.filter((e) => e !== ALL_EVENTS && !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 3).map((e) => JSON.stringify(e.slice(0, 60)));
    throw AppError.field(['body', 'events'], `unknown event ${shown.join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')} or "*"`, 'enum');
  }
  return [...new Set(events)];
}

export const subscribesTo = (events: readonly string[], type: string): boolean => events.includes(ALL_EVENTS) || events.includes(type);

const TASK_EVENT: Partial<Record<string, WebhookEventType>> = {
  [TaskStatus.Completed]: 'task.completed',
  [TaskStatus.Failed]: 'task.failed',
  [TaskStatus.Cancelled]: 'task.cancelled',
};

/** The webhook event of a task state; undefined for states that are not final. */
export const taskEventType = (status: string): WebhookEventType | undefined => TASK_EVENT[status];

export function documentEventType(e: DocumentEvent): WebhookEventType {
  if (e.change === 'updated' && e.action === 'restored') return 'document.restored';
  return `document.${e.change}`;
}
