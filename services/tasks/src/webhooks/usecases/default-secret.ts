import type { Actor } from '../../domain/types';
import type { WebhooksContext } from '../context';
import { newSecret } from '../signature';

/** The secret that signs the account's per-submission `webhook` deliveries (made on first use). */
export function defaultSecret(ctx: WebhooksContext, actor: Actor): Promise<{ secret: string; createdAt: Date }> {
  return ctx.endpoints.defaultSecret(actor.accountId, newSecret);
}
