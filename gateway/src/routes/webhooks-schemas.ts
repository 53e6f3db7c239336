import { z } from 'zod';
import '../http/route-book';
import type { Delivery, Webhook } from '@tollgate/protos/webhooks';
import { decimalInt } from '../http/form-numbers';

/** Event names a subscription may ask for (the tasks service checks the same list); "*" means all. */
export const WEBHOOK_EVENTS = ['document.created', 'document.updated', 'document.deleted', 'document.restored', 'task.completed', 'task.failed', 'task.cancelled', 'ping'] as const;
export const WEBHOOK_LIMITS = { url: 2048, description: 500, events: 20 } as const;
export const DELIVERIES_MAX_LIMIT = 200;

// Event names are checked by the service: an unknown one is a 422 naming it and the known ones.
const events = z
  .array(z.string().max(100))
  .min(1)
  .max(WEBHOOK_LIMITS.events)
  .openapi({ description: `Event names (${WEBHOOK_EVENTS.join(', ')}) or "*" for all; an unknown name is a 422` });
const url = z.string().max(WEBHOOK_LIMITS.url).openapi({ description: 'http or https URL; loopback, private, link-local and metadata addresses are refused (docs/webhooks.md)' });
const description = z.string().max(WEBHOOK_LIMITS.description);

export const createWebhookBody = z.object({ url, events, description: description.optional() }).strict();

export const updateWebhookBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    active: z.boolean().optional().openapi({ description: 'false pauses deliveries; true re-enables (also one disabled after failures)' }),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update: give at least one of url, events, description, active' });

export const webhookParams = z.object({ id: z.string().min(1).max(64) });
export const deliveryParams = z.object({ id: z.string().min(1).max(64), delivery_id: z.string().min(1).max(64) });
export const deliveriesQuery = z.object({
  limit: decimalInt(1, DELIVERIES_MAX_LIMIT).optional().openapi({ description: `Default 50, at most ${DELIVERIES_MAX_LIMIT}` }),
});

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  disabled_reason: z.string().nullable().openapi({ description: 'Why deliveries stopped (after failing for 3 days); null otherwise' }),
  failing_since: z.string().nullable(),
  account_id: z.number().int(),
});
export const webhookWithSecretSchema = webhookSchema.extend({ secret: z.string().openapi({ description: '`whsec_…`; shown only on creation and rotation' }) });

const attemptSchema = z.object({
  number: z.number().int(),
  at: z.string(),
  status_code: z.number().int().nullable().openapi({ description: 'null when no HTTP answer came' }),
  latency_ms: z.number().int(),
  response_body: z.string().openapi({ description: 'The first 1024 characters' }),
  error: z.string().nullable(),
});

export const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_retry_at: z.string().nullable(),
  created_at: z.string(),
  attempt_log: z.array(attemptSchema),
  payload: z.unknown().openapi({ description: 'The body sent: {id, type, created, data}' }),
});

export function webhookJson(w: Webhook) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    active: w.active,
    description: w.description,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    disabled_reason: w.disabledReason || null,
    failing_since: w.failingSince || null,
    account_id: w.accountId,
  };
}

export const webhookWithSecretJson = (w: Webhook) => ({ ...webhookJson(w), secret: w.secret });

export function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_retry_at: d.nextRetryAt || null,
    created_at: d.createdAt,
    attempt_log: d.attemptLog.map((a) => ({ number: a.number, at: a.at, status_code: a.statusCode || null, latency_ms: a.latencyMs, response_body: a.responseBody, error: a.error || null })),
    payload: d.payload ?? null,
  };
}
