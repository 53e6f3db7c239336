import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { GatewayDeps } from '../deps';
import { httpsOnly } from '../http/https-only';
import { setSurface } from '../http/surface';
import { requireUser } from '../auth/user-token';
import { docsRateLimit, docsRateLimitForRefused } from '../limits/docs-rate-limit';

/**
 * What runs before every docs-API route (`/api/v1/*`; `/api/*` is rewritten to it), once:
 * the envelope error shape, the HTTPS rule, then authentication and the hourly rate limit.
 */
export function apiSurface(deps: GatewayDeps): Array<RequestHandler | ErrorRequestHandler> {
  const envelope: RequestHandler = (_req, res, next) => {
    setSurface(res, 'docs');
    next();
  };
  return [envelope, httpsOnly, requireUser(deps), docsRateLimit(deps), docsRateLimitForRefused(deps)];
}
