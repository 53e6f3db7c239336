import type { Actor } from '../../domain/types';
import { ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import type { DeliveryWithAttempts } from '../types';

export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 200;

/** The subscription's deliveries, newest first, each with its attempts. */
export async function listDeliveries(ctx: WebhooksContext, actor: Actor, webhookId: string, limit: number): Promise<DeliveryWithAttempts[]> {
  const e = await ownedEndpoint(ctx, actor, webhookId);
  const take = Math.min(Math.max(limit || DELIVERIES_DEFAULT_LIMIT, 1), DELIVERIES_MAX_LIMIT);
  return ctx.deliveries.listForEndpoint(e.id, take);
}
