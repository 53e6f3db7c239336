import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError, ErrorCode, isAppError } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import type { UserPrincipal } from '../auth/user-token';
import { RateCounter } from './rate-counter';

export const DOCS_RATE_WINDOW_SECONDS = 3_600;

const LIMIT_HEADER = 'X-RateLimit-Limit';

/** Requests per hour of an account level (unknown level = free). */
export function docsHourlyLimit(deps: GatewayDeps, level: string): number {
  const { DOCS_RATE_LIMIT_FREE, DOCS_RATE_LIMIT_PRO, DOCS_RATE_LIMIT_ENTERPRISE } = deps.config;
  return level === 'enterprise' ? DOCS_RATE_LIMIT_ENTERPRISE : level === 'pro' ? DOCS_RATE_LIMIT_PRO : DOCS_RATE_LIMIT_FREE;
}

/** The gateway's counter of docs requests (made on first use when the deps have none). */
function counterOf(deps: GatewayDeps): RateCounter {
  return (deps.docsRateCounter ??= new RateCounter((r) => deps.upstreams.billing.hitRateLimit(r), DOCS_RATE_WINDOW_SECONDS));
}

/** Counts the request in its bucket (in billing, shared by every replica), sets the headers, and returns the 429 to send, if any. */
async function count(deps: GatewayDeps, req: Request, res: Response): Promise<AppError | undefined> {
  const user = res.locals.user as UserPrincipal | undefined;
  const bucket = user ? `docs:account:${user.account.id}` : `docs:ip:${req.ip ?? 'unknown'}`;
  const limit = docsHourlyLimit(deps, user?.account.level ?? 'free');
  const r = await counterOf(deps).hit(bucket, limit);
  res.setHeader(LIMIT_HEADER, String(r.limit));
  res.setHeader('X-RateLimit-Remaining', String(r.remaining));
  res.setHeader('X-RateLimit-Reset', String(r.reset));
  if (r.allowed) return undefined;
  const retryAfterSeconds = Math.max(1, r.reset - Math.floor(Date.now() / 1000));
  return AppError.exhausted(`rate limit exceeded: ${r.limit} requests per hour${user ? ' for this token' : ' for unauthenticated requests from this address'}; the window resets at ${r.reset} (Unix time)`, {
    limit: 'hourly',
    retryAfterSeconds,
  });
}

/**
 * The rate-limit headers of a docs request refused before Express saw it (the HTTP parser's 400/431):
 * counted per client address at the free tier, like every other refused request. Empty when billing
 * cannot be reached (the refusal is still answered).
 */
export async function refusedRequestRateHeaders(deps: GatewayDeps, address: string): Promise<Record<string, string>> {
  try {
    const limit = docsHourlyLimit(deps, 'free');
    const r = await counterOf(deps).hit(`docs:ip:${address}`, limit);
    return { [LIMIT_HEADER]: String(r.limit), 'X-RateLimit-Remaining': String(r.remaining), 'X-RateLimit-Reset': String(r.reset) };
  } catch {
    return {};
  }
}

/**
 * The docs API's hourly limit, per user token by account level (free 1,000, pro 10,000,
 * enterprise DOCS_RATE_LIMIT_ENTERPRISE); sets X-RateLimit-Limit/Remaining/Reset on every
 * response, 429 in the envelope when over. Goes after requireUser; without a user (no auth in
 * front) it counts per client address at the free tier.
 */
export function docsRateLimit(deps: GatewayDeps): RequestHandler {
  return async (req, res, next) => {
    const refused = await count(deps, req, res);
    next(refused);
  };
}

const isOverLimit = (err: unknown) => isAppError(err) && err.code === ErrorCode.ResourceExhausted;

/**
 * For docs requests refused before they were counted (413, malformed JSON, HTTPS rule, 401, 禁用 account):
 * counts them per client address at the free tier so these responses carry the headers too, and
 * answers 429 instead once that address is over. Goes right after docsRateLimit.
 */
export function docsRateLimitForRefused(deps: GatewayDeps): ErrorRequestHandler {
  return async (err, req, res, next) => {
    if (res.getHeader(LIMIT_HEADER) !== undefined || isOverLimit(err)) return next(err);
    const overLimit = await count(deps, req, res).catch(() => undefined);
    next(overLimit ?? err);
  };
}
