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
  if ((await ctx.endpoints.countOf(actor.accountId)) >= ctx.settings.maxPerAccount) {
    throw AppError.conflict(`an account may have at most ${ctx.settings.maxPerAccount} webhooks`);
  }
  const e = await ctx.endpoints.create({ id: `wh_${randomBytes(12).toString('hex')}`, accountId: actor.accountId, url, events, description, secret: newSecret() });
  await announce(ctx, actor, e, 'created');
  return e;
}
