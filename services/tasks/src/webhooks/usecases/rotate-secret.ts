import type { Actor } from '../../domain/types';
import { announce, ownedEndpoint } from '../access';
import type { WebhooksContext } from '../context';
import { SECRET_OVERLAP_MS } from '../settings';
import { newSecret } from '../signature';
import type { EndpointRecord } from '../types';

/** A new secret, returned this once; the old one signs alongside (a second `v1=`) for 24 hours. */
export async function rotateSecret(ctx: WebhooksContext, actor: Actor, id: string): Promise<EndpointRecord> {
  const e = await ownedEndpoint(ctx, actor, id);
  const rotated = await ctx.endpoints.rotate(e.id, newSecret(), e.secret, new Date(Date.now() + SECRET_OVERLAP_MS));
  await announce(ctx, actor, rotated, 'secret_rotated');
  return rotated;
}
