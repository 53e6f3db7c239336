import { implement, type Logger } from '@tollgate/kit';
import { WebhooksService } from '@tollgate/protos/webhooks';
import { decodeActor } from '../encode';
import { requireActor } from '../domain/access';
import type { WebhooksContext } from './context';
import { encodeDelivery, encodeWebhook } from './encode';
import { createWebhook } from './usecases/create-webhook';
import { listWebhooks } from './usecases/list-webhooks';
import { getWebhook } from './usecases/get-webhook';
import { updateWebhook } from './usecases/update-webhook';
import { deleteWebhook } from './usecases/delete-webhook';
import { rotateSecret } from './usecases/rotate-secret';
import { testWebhook } from './usecases/test-webhook';
import { listDeliveries } from './usecases/list-deliveries';
import { redeliver } from './usecases/redeliver';
import { defaultSecret } from './usecases/default-secret';

/** gRPC handlers of the Webhooks service: decode → use case → encode. */
export function webhooksServer(ctx: WebhooksContext, log: Logger) {
  const actor = (a: Parameters<typeof decodeActor>[0]) => requireActor(decodeActor(a));
  return implement(
    WebhooksService,
    {
      createWebhook: async (req) => encodeWebhook(await createWebhook(ctx, actor(req.actor), { url: req.url, events: req.events, description: req.description }), { withSecret: true }),
      listWebhooks: async (req) => ({ items: (await listWebhooks(ctx, actor(req.actor))).map((e) => encodeWebhook(e)) }),
      getWebhook: async (req) => encodeWebhook(await getWebhook(ctx, actor(req.actor), req.id)),
      updateWebhook: async (req) =>
        encodeWebhook(await updateWebhook(ctx, actor(req.actor), req.id, { url: req.url, events: req.eventsSet ? req.events : undefined, description: req.description, active: req.active })),
      deleteWebhook: async (req) => encodeWebhook(await deleteWebhook(ctx, actor(req.actor), req.id)),
      rotateSecret: async (req) => encodeWebhook(await rotateSecret(ctx, actor(req.actor), req.id), { withSecret: true }),
      testWebhook: async (req) => encodeDelivery(await testWebhook(ctx, actor(req.actor), req.id)),
      listDeliveries: async (req) => ({ items: (await listDeliveries(ctx, actor(req.actor), req.webhookId, req.limit)).map(encodeDelivery) }),
      redeliver: async (req) => encodeDelivery(await redeliver(ctx, actor(req.actor), req.webhookId, req.deliveryId)),
      getDefaultSecret: async (req) => {
        const s = await defaultSecret(ctx, actor(req.actor));
        return { secret: s.secret, createdAt: s.createdAt.toISOString() };
      },
    },
    log,
  );
}
