import { AppError } from '@tollgate/kit';
import type { Actor } from '../../domain/types';
import { ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import { deliveryIdOf, eventBody, eventIdOf, randomKey } from '../event-body';
import type { DeliveryWithAttempts } from '../types';

/** Queues a `ping` event to the subscription (whatever its event list); data names the subscription. */
export async function testWebhook(ctx: WebhooksContext, actor: Actor, id: string): Promise<DeliveryWithAttempts> {
  const e = await ownedEndpoint(ctx, actor, id);
  if (!e.active) throw AppError.conflict(`webhook ${e.id} is disabled; re-enable it (PUT with "active": true) first`);
  const eventId = eventIdOf(`ping:${e.id}:${randomKey()}`);
  const deliveryId = deliveryIdOf(eventId, e.id);
  const body = eventBody(eventId, 'ping', new Date(), { webhook_id: e.id, url: e.url });
  await ctx.deliveries.enqueue([{ id: deliveryId, eventId, eventType: 'ping', endpointId: e.id, accountId: e.accountId, url: e.url, body, maxAttempts: ctx.settings.maxAttempts }]);
  ctx.queued();
  return (await ctx.deliveries.find(deliveryId))!;
}
