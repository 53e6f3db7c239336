import type { Actor } from '../../domain/types';
import { ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import type { EndpointRecord } from '../types';

export function getWebhook(ctx: WebhooksContext, actor: Actor, id: string): Promise<EndpointRecord> {
  return ownedEndpoint(ctx, actor, id);
}
