import { AppError } from '@tollgate/kit';
import type { Actor } from '../domain/types';
import type { WebhooksContext } from './context';
import { webhookChangedSubject, type EndpointRecord, type WebhookChangedEvent } from './types';

export const webhookNotFound = (id: string) => AppError.notFound(`webhook ${id.slice(0, 64)} not found`);

/** The actor's subscription (any, for an admin); someone else's is the same 404 as a missing one. */
export async function ownedEndpoint(ctx: WebhooksContext, actor: Actor, id: string): Promise<EndpointRecord> {
  const e = id.length <= 64 ? await ctx.endpoints.find(id) : null;
  if (!e || (!actor.isAdmin && e.accountId !== actor.accountId)) throw webhookNotFound(id);
  return e;
}

/** `webhooks.changed.<id>`: the point where activity tracking plugs in; a lost publish is logged, not fatal. */
export async function announce(ctx: WebhooksContext, actor: Actor, e: EndpointRecord, change: WebhookChangedEvent['change']): Promise<void> {
  ctx.active.forget();
  const event: WebhookChangedEvent = { id: e.id, account_id: e.accountId, change, by_account_id: actor.accountId, at: new Date().toISOString() };
  await ctx.bus.publish(webhookChangedSubject(e.id), event).catch((err: unknown) => ctx.log.warn({ err, webhook: e.id }, 'webhooks.changed not published'));
}
