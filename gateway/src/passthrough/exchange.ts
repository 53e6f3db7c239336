import type { ClientRequest } from 'node:http';
import type { Response } from 'express';
import type { GatewayDeps } from '../deps';
import { settleExecution } from '../billing/admission';
import type { Provider } from './providers';

/** One admitted passthrough request: which upstream, and what has happened to it so far. */
export interface Exchange {
  provider: Provider;
  taskNumber: string;
  /** Status of the upstream's answer, once its headers arrived. */
  upstreamStatus?: number;
  proxyReq?: ClientRequest;
  timedOut: boolean;
  /** The request body went over the limit; the gateway answered 413 itself. */
  tooLarge: boolean;
  /** The upstream failed before anything was sent to the client; the gateway answered 502/504. */
  failed: boolean;
  settled?: Promise<void>;
}

const KEY = 'passthrough';

export function startExchange(res: Response, provider: Provider, taskNumber: string): Exchange {
  const exchange: Exchange = { provider, taskNumber, timedOut: false, tooLarge: false, failed: false };
  res.locals[KEY] = exchange;
  return exchange;
}

/** The exchange of a response behind the admission step; undefined elsewhere (e.g. a socket). */
export function exchangeOf(res: unknown): Exchange | undefined {
  return (res as Response | undefined)?.locals?.[KEY] as Exchange | undefined;
}

export const upstreamAnswered = (ex: Exchange): boolean => !ex.tooLarge && !ex.failed && ex.upstreamStatus !== undefined && ex.upstreamStatus >= 200 && ex.upstreamStatus < 300;

/** An error answer waits at most this long for its refund; the refund itself goes on being retried. */
export const REFUND_WAIT_MS = 1_000;

/**
 * Settles the request once: charged when the upstream answered 2xx, refunded otherwise (an error
 * answer, unreachable, timed out, body too large, or the client left before the answer).
 * Billing is idempotent by task number as well; a failed call is left to its admission sweep.
 */
export function settleExchange(deps: GatewayDeps, ex: Exchange, options: { now?: boolean } = {}): Promise<void> {
  ex.settled ??= settleExecution(deps, ex.taskNumber, upstreamAnswered(ex) ? 'charge' : 'refund', {}, options).then(
    () => undefined,
    (err: unknown) => deps.log.warn({ err, taskNumber: ex.taskNumber }, 'passthrough settlement failed; billing refunds it with its admission sweep'),
  );
  return ex.settled;
}

/**
 * Refunds a request the gateway is about to answer with an error, sent at once, so that the
 * client's retry finds the quota and the concurrency slot free on any replica. The answer waits
 * for billing at most REFUND_WAIT_MS: billing gone since the admission must not hold it back.
 */
export async function refundBeforeAnswer(deps: GatewayDeps, ex: Exchange): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, REFUND_WAIT_MS)));
  try {
    await Promise.race([settleExchange(deps, ex, { now: true }), cap]);
  } finally {
    clearTimeout(timer);
  }
}
