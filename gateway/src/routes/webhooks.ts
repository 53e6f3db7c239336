import { Router } from 'express';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { recordActivity } from '../activity/record-activity';
import { envelope } from './documents-schemas';
import {
  createWebhookBody,
  deliveriesQuery,
  deliveryJson,
  deliveryParams,
  deliverySchema,
  updateWebhookBody,
  webhookJson,
  webhookParams,
  webhookSchema,
  webhookWithSecretJson,
  webhookWithSecretSchema,
} from './webhooks-schemas';
import { rpcFor } from '../http/request-id';

const errors = {
  401: { description: 'Missing or unknown token' },
  403: { description: 'Disabled account, or plain HTTP' },
  422: { description: 'Invalid input (unknown event name, refused URL); data.errors lists the fields' },
};
const notFound = { 404: { description: "No such webhook (or another account's)" } };

/**
 * `/api/v1/webhooks`: subscriptions to task and document events and their deliveries, in the docs-API
 * envelope, for any authenticated user (owner-scoped; an admin sees all). Decisions in docs/webhooks.md.
 */
export function webhookRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { webhooks } = deps.upstreams;
  const before = [requireUser(deps)];
  const tags = ['Webhooks'];
  const security = 'userToken' as const;
  const actor = (res: Parameters<typeof userOf>[0]) => userOf(res).actor;

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/webhooks/default-secret', summary: "The account's default secret, which signs per-submission `webhook` deliveries", tags, security, before, responses: { 200: { description: 'The secret', schema: envelope(z.object({ secret: z.string(), created_at: z.string() })) }, ...errors } },
    async (_input, _req, res) => {
      const s = await webhooks.getDefaultSecret({ actor: actor(res) }, rpcFor(res));
      sendEnvelope(res, { secret: s.secret, created_at: s.createdAt });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/webhooks', summary: 'Subscribe a URL to events; data.secret is shown only here and on rotation', tags, security, body: createWebhookBody, before, responses: { 201: { description: 'Created', schema: envelope(webhookWithSecretSchema) }, 409: { description: 'Too many webhooks on the account' }, ...errors } },
    async ({ body }, req, res) => {
      const w = await webhooks.createWebhook({ actor: actor(res), url: body.url, events: body.events, description: body.description ?? '' }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'webhook.created', target_type: 'webhook', target_id: w.id, summary: `created webhook ${w.id} for ${w.events.join(', ')}` });
      sendEnvelope(res, webhookWithSecretJson(w), { status: 201, message: 'webhook created' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/webhooks', summary: "The account's webhooks (an admin's list has everyone's)", tags, security, before, responses: { 200: { description: 'Webhooks', schema: envelope(z.object({ webhooks: z.array(webhookSchema) })) }, ...errors } },
    async (_input, _req, res) => {
      const out = await webhooks.listWebhooks({ actor: actor(res) }, rpcFor(res));
      sendEnvelope(res, { webhooks: out.items.map(webhookJson) });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/webhooks/:id', summary: 'One webhook', tags, security, params: webhookParams, before, responses: { 200: { description: 'The webhook', schema: envelope(webhookSchema) }, ...notFound, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, webhookJson(await webhooks.getWebhook({ actor: actor(res), id: params.id }, rpcFor(res))));
    },
  );

  deps.book.add(
    router,
    { method: 'put', path: '/api/v1/webhooks/:id', summary: 'Change url, events, description; active true re-enables a disabled webhook', tags, security, params: webhookParams, body: updateWebhookBody, before, responses: { 200: { description: 'Updated', schema: envelope(webhookSchema) }, ...notFound, ...errors } },
    async ({ params, body }, req, res) => {
      const w = await webhooks.updateWebhook({ actor: actor(res), id: params.id, url: body.url, events: body.events ?? [], eventsSet: body.events !== undefined, description: body.description, active: body.active }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'webhook.updated', target_type: 'webhook', target_id: w.id, summary: `updated webhook ${w.id}${body.active === true ? ' (re-enabled)' : ''}` });
      sendEnvelope(res, webhookJson(w), { message: 'webhook updated' });
    },
  );

  deps.book.add(
    router,
    { method: 'delete', path: '/api/v1/webhooks/:id', summary: 'Delete a webhook and its deliveries', tags, security, params: webhookParams, before, responses: { 200: { description: 'Deleted; data is the webhook as it was', schema: envelope(webhookSchema) }, ...notFound, ...errors } },
    async ({ params }, req, res) => {
      const w = await webhooks.deleteWebhook({ actor: actor(res), id: params.id }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'webhook.deleted', target_type: 'webhook', target_id: w.id, summary: `deleted webhook ${w.id}` });
      sendEnvelope(res, webhookJson(w), { message: 'webhook deleted' });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/webhooks/:id/rotate-secret', summary: 'New secret (shown once); the old one also signs for 24 hours', tags, security, params: webhookParams, before, responses: { 200: { description: 'The webhook with its new secret', schema: envelope(webhookWithSecretSchema) }, ...notFound, ...errors } },
    async ({ params }, req, res) => {
      const w = await webhooks.rotateSecret({ actor: actor(res), id: params.id }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'webhook.secret_rotated', target_type: 'webhook', target_id: w.id, summary: `rotated the secret of webhook ${w.id}` });
      sendEnvelope(res, webhookWithSecretJson(w), { message: 'secret rotated; the previous secret keeps signing for 24 hours' });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/webhooks/:id/test', summary: 'Send a `ping` event to the webhook', tags, security, params: webhookParams, before, responses: { 202: { description: 'Queued; data is the delivery', schema: envelope(deliverySchema) }, 409: { description: 'The webhook is disabled' }, ...notFound, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, deliveryJson(await webhooks.testWebhook({ actor: actor(res), id: params.id }, rpcFor(res))), { status: 202, message: 'ping queued' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/webhooks/:id/deliveries', summary: 'Deliveries, newest first: event, attempts (status code, latency, response body), next retry', tags, security, params: webhookParams, query: deliveriesQuery, before, responses: { 200: { description: 'Deliveries', schema: envelope(z.object({ deliveries: z.array(deliverySchema) })) }, ...notFound, ...errors } },
    async ({ params, query }, _req, res) => {
      const out = await webhooks.listDeliveries({ actor: actor(res), webhookId: params.id, limit: query.limit ?? 0 }, rpcFor(res));
      sendEnvelope(res, { deliveries: out.items.map(deliveryJson) });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver', summary: 'Send the same event (same id and body) once more, now', tags, security, params: deliveryParams, before, responses: { 202: { description: 'Queued; data is the delivery', schema: envelope(deliverySchema) }, 409: { description: 'The webhook is disabled' }, 404: { description: 'No such webhook or delivery' }, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, deliveryJson(await webhooks.redeliver({ actor: actor(res), webhookId: params.id, deliveryId: params.delivery_id }, rpcFor(res))), { status: 202, message: 'redelivery queued' });
    },
  );
  return router;
}
