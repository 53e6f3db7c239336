import type { RequestHandler } from 'express';
import type { GatewayDeps } from '../deps';
import { httpsOnly } from '../http/https-only';
import { setSurface } from '../http/surface';

/**
 * What runs before every docs-API route (`/api/v1/*`; `/api/*` is rewritten to it), once:
 * the envelope error shape, the HTTPS rule, then authentication and the hourly rate limit.
 */
export function apiSurface(_deps: GatewayDeps): RequestHandler[] {
  const envelope: RequestHandler = (_req, res, next) => {
    setSurface(res, 'docs');
    next();
  };
  return [envelope, httpsOnly];
}
