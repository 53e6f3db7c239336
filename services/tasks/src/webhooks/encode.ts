import type { Delivery, Webhook } from '@tollgate/protos/webhooks';
import type { DeliveryWithAttempts, EndpointRecord } from './types';

const iso = (d: Date | null) => (d ? d.toISOString() : '');

export function encodeWebhook(e: EndpointRecord, opts: { withSecret?: boolean } = {}): Webhook {
  return {
    id: e.id,
    accountId: e.accountId,
    url: e.url,
    events: e.events,
    active: e.active,
    description: e.description,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    secret: opts.withSecret ? e.secret : '',
    disabledReason: e.disabledReason,
    failingSince: iso(e.failingSince),
  };
}

export function encodeDelivery(d: DeliveryWithAttempts): Delivery {
  return {
    id: d.id,
    webhookId: d.endpointId ?? '',
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextRetryAt: d.status === 'pending' ? iso(d.nextAttemptAt) : '',
    createdAt: iso(d.createdAt),
    url: d.url,
    payload: JSON.parse(d.body) as Record<string, unknown>,
    attemptLog: d.attemptLog.map((a) => ({ number: a.number, at: iso(a.at), statusCode: a.statusCode, latencyMs: a.latencyMs, responseBody: a.responseBody, error: a.error })),
  };
}
