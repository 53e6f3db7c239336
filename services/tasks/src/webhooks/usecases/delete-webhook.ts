import type { Actor } from '../../domain/types';
import { announce, ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import type { EndpointRecord } from '../types';

/** Removes the subscription and its deliveries (pending ones are not sent). */
export async function deleteWebhook(ctx: WebhooksContext, actor: Actor, id: string): Promise<EndpointRecord> {
  const e = await ownedEndpoint(ctx, actor, id);
  await ctx.endpoints.delete(e.id);
  await announce(ctx, actor, e, 'deleted');
  return e;
}
