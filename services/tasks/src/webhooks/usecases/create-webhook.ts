import { randomBytes } from 'node:crypto';
import { AppError } from '@tollgate/kit';
import type { Actor } from '../../domain/types';
import { announce } from '../access';
import type { WebhooksContext } from '../context';
import { checkEvents } from '../events';
import { newSecret } from '../signature';
import type { EndpointRecord } from '../types';
import { checkSubscriptionUrl } from '../url-policy';
import { checkDescription } from './fields';

export interface CreateWebhookInput {
  url: string;
  events: string[];
  description: string;
}

/** A new subscription; its secret is returned this once. */
export async function createWebhook(ctx: WebhooksContext, actor: Actor, input: CreateWebhookInput): Promise<EndpointRecord> {
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  const url = await checkSubscriptionUrl(input.url, ctx.settings.allowPrivateNetworks);
  const e = await ctx.endpoints.createWithin({ id: `wh_${randomBytes(12).toString('hex')}`, accountId: actor.accountId, url, events, description, secret: newSecret() }, ctx.settings.maxPerAccount);
  if (!e) throw AppError.conflict(`an account may have at most ${ctx.settings.maxPerAccount} webhooks`);
  await announce(ctx, actor, e, 'created');
  return e;
}
