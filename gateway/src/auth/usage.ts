import { status as GrpcStatus } from '@grpc/grpc-js';
import { isAppError } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';

function unimplemented(err: unknown): boolean {
  return isAppError(err) && (err.cause as { code?: number } | undefined)?.code === GrpcStatus.UNIMPLEMENTED;
}

/**
 * `used_quota` of each key from the billing service (decimal strings; missing keys used nothing).
 * A billing service that does not implement GetUsage yet counts as "nothing used".
 */
export async function usedQuotaOf(deps: GatewayDeps, apiKeyIds: number[]): Promise<Map<number, string>> {
  const used = new Map<number, string>();
  if (apiKeyIds.length === 0) return used;
  try {
    const res = await deps.upstreams.billing.getUsage({ apiKeyIds });
    for (const item of res.items) used.set(item.apiKeyId, item.usedQuota || '0');
  } catch (err) {
    if (!unimplemented(err)) throw err;
    deps.log.debug('billing GetUsage is not implemented: used_quota counts as 0');
  }
  return used;
}
