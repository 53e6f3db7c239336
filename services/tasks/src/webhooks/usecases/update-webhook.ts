import type { Actor } from '../../domain/types';
import { announce, ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import type { EndpointChange } from '../endpoint-repo';
import { checkEvents } from '../events';
import type { EndpointRecord } from '../types';
import { checkSubscriptionUrl } from '../url-policy';
import { checkDescription } from './fields';

export interface UpdateWebhookInput {
  url?: string;
  events?: string[];
  description?: string;
  active?: boolean;
}

/** Changes the fields given; `active: true` re-enables a disabled subscription (its pending deliveries resume). */
export async function updateWebhook(ctx: WebhooksContext, actor: Actor, id: string, input: UpdateWebhookInput): Promise<EndpointRecord> {
  const current = await ownedEndpoint(ctx, actor, id);
  const change: EndpointChange = {};
  if (input.events !== undefined) change.events = checkEvents(input.events);
  if (input.description !== undefined) change.description = checkDescription(input.description);
  if (input.url !== undefined) change.url = await checkSubscriptionUrl(input.url, ctx.settings.allowPrivateNetworks);
  if (input.active !== undefined) change.active = input.active;
  const updated = await ctx.endpoints.update(current.id, change);
  const toggled = input.active !== undefined && input.active !== current.active;
  await announce(ctx, actor, updated, toggled ? (input.active ? 'enabled' : 'disabled') : 'updated');
  if (toggled && input.active) ctx.queued();
  return updated;
}
