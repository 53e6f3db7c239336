export type {
  WebhookEndpoint as EndpointRecord,
  WebhookDelivery as DeliveryRecord,
  WebhookAttempt as AttemptRecord,
} from '../generated/prisma/client';
import type { WebhookAttempt, WebhookDelivery } from '../generated/prisma/client';

export type DeliveryWithAttempts = WebhookDelivery & { attemptLog: WebhookAttempt[] };

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A delivery claimed for an attempt: what to send, where (the subscription's current URL), and the signing secrets. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string | null;
  accountId: number;
  url: string;
  body: string;
  attempts: number;
  maxAttempts: number;
  /** Current secret first, then the previous one while a rotation overlaps; empty when the account's default secret is not made yet. */
  secrets: string[];
}

/** A delivery to queue: one event body for one URL. */
export interface NewDelivery {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string | null;
  accountId: number;
  url: string;
  body: string;
  maxAttempts: number;
}

/** `webhooks.changed.<id>`: a subscription was created, changed, disabled or deleted (for activity tracking). */
export interface WebhookChangedEvent {
  id: string;
  account_id: number;
  change: 'created' | 'updated' | 'deleted' | 'secret_rotated' | 'disabled' | 'enabled';
  /** The account that made the change; 0 when the delivery machinery did (a disable after failures). */
  by_account_id: number;
  at: string;
}

export const webhookChangedSubject = (id: string) => `webhooks.changed.${id}`;
export const WEBHOOK_CHANGED_SUBJECTS = 'webhooks.changed.>';
