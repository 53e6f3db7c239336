import { createHash } from 'node:crypto';

const digest = (text: string, chars: number) => createHash('sha256').update(text).digest('base64url').slice(0, chars);

/**
 * Ids derived from what happened, so that a bus message handled twice queues nothing twice:
 * `evt_…` from the event's own key, `dlv_…` from the event and its target.
 */
export const eventIdOf = (key: string) => `evt_${digest(key, 24)}`;
export const deliveryIdOf = (eventId: string, target: string) => `dlv_${digest(`${eventId}|${target}`, 24)}`;
/** A `ping` from the test endpoint is a new event every time. */
export const randomKey = () => `${Date.now()}:${Math.random()}`;

/** The exact bytes every attempt of a delivery sends: `{id, type, created, data}`. */
export function eventBody(id: string, type: string, created: Date, data: unknown): string {
  return JSON.stringify({ id, type, created: created.toISOString(), data });
}
