import type { ApiKey, DeleteKeyRequest } from '@tollgate/protos/keys';
import { keyToMsg } from '../domain/mappers';
import { ownedKey } from './access';
import type { KeysContext } from './context';

/** Deletes a key: from now on it is unknown (401) everywhere, caches included (keys.changed event). */
export async function deleteKey(ctx: KeysContext, req: DeleteKeyRequest): Promise<ApiKey> {
  const key = await ownedKey(ctx, req.actor, req.apiKeyId);
  const row = await ctx.keys.softDelete(key.id);
  await ctx.events.changed('key', row.id, row.accountId);
  return keyToMsg(row);
}
