import { AppError } from '@tollgate/kit';
import type { Actor } from '../../domain/types';
import { ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import type { DeliveryWithAttempts } from '../types';

/** Sends the same event (same id and body) once more, now; the subscription must be active. */
export async function redeliver(ctx: WebhooksContext, actor: Actor, webhookId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
  const e = await ownedEndpoint(ctx, actor, webhookId);
  const d = deliveryId.length <= 64 ? await ctx.deliveries.find(deliveryId) : null;
  if (!d || d.endpointId !== e.id) throw AppError.notFound(`delivery ${deliveryId.slice(0, 64)} not found`);
  if (!e.active) throw AppError.conflict(`webhook ${e.id} is disabled; re-enable it (PUT with "active": true) first`);
  const again = await ctx.deliveries.redeliver(d.id);
  ctx.queued();
  return again;
}
