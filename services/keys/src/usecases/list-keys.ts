import type { ListKeysRequest, ListKeysResponse } from '@tollgate/protos/keys';
import { checkStatus } from '../domain/account-rules';
import { keyToMsg } from '../domain/mappers';
import { ownerOf, paging } from './access';
import type { KeysContext } from './context';

/** One account's keys (the caller's, or any account's for an admin), oldest first, secrets never shown. */
export async function listKeys(ctx: KeysContext, req: ListKeysRequest): Promise<ListKeysResponse> {
  const accountId = ownerOf(req.actor, req.accountId);
  const { page, pageSize, skip } = paging(req.page);
  const status = req.status ? checkStatus(req.status) : undefined;
  const { items, total } = await ctx.keys.list({ accountId, channel: req.channel || undefined, status }, skip, pageSize);
  return { items: items.map((k) => keyToMsg(k)), page: { page, pageSize, total } };
}
