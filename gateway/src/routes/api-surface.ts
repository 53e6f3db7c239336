import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { GatewayDeps } from '../deps';
import { httpsOnly } from '../http/https-only';
import { headerSizeLimit } from '../http/header-size';
import { setSurface } from '../http/surface';
import { requireUser } from '../auth/user-token';
import { docsRateLimit, docsRateLimitForRefused } from '../limits/docs-rate-limit';
import { optionsRoute } from '../http/options';
import { wrongMethod } from '../http/unknown-route';
import { jsonBodyOnly } from '../http/json-body-only';

/**
 * What runs before every docs-API route (`/api/v1/*`; `/api/*` and `/v1/docs/*` are rewritten to
 * it), once: the envelope error shape, the HTTPS rule, then authentication and the hourly rate
 * limit, and bodies in JSON only (415). OPTIONS skips authentication (counted per client address) and is answered here.
 */
export function apiSurface(deps: GatewayDeps): Array<RequestHandler | ErrorRequestHandler> {
  const envelope: RequestHandler = (_req, res, next) => {
    setSurface(res, 'docs');
    next();
  };
  const user = requireUser(deps);
  const authenticate: RequestHandler = (req, res, next) => (req.method === 'OPTIONS' ? next() : user(req, res, next));
  return [envelope, headerSizeLimit(), httpsOnly, authenticate, docsRateLimit(deps), docsRateLimitForRefused(deps), optionsRoute(deps.book), wrongMethod(deps.book), jsonBodyOnly];
}
