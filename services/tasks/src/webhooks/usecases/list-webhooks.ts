import type { Actor } from '../../domain/types';
import type { WebhooksContext } from '../context';
import type { EndpointRecord } from '../types';

/** The actor's subscriptions; an admin's list has everyone's. */
export function listWebhooks(ctx: WebhooksContext, actor: Actor): Promise<EndpointRecord[]> {
  return ctx.endpoints.list(actor.isAdmin ? undefined : actor.accountId);
}
