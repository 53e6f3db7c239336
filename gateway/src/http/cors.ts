import type { RequestHandler } from 'express';

const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, ETag, Retry-After';
const ALLOWED_HEADERS = 'Authorization, Content-Type, If-Match, X-Request-Id';
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

/**
 * CORS for the browser origins in CORS_ORIGINS (exact `scheme://host[:port]` matches): the origin
 * is echoed with the rate-limit and ETag headers exposed; a preflight (OPTIONS with
 * Access-Control-Request-Method) also gets the allowed methods and headers, then is answered by
 * the OPTIONS route like any OPTIONS request. Other origins get no CORS headers.
 */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.header('origin');
    res.vary('Origin');
    if (!origin || !allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    if (req.method === 'OPTIONS' && req.header('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    next();
  };
}
