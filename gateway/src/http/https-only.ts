import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';

/**
 * The docs API is HTTPS only: a plain-HTTP request is refused (403, in the envelope) unless a
 * trusted proxy says it terminated TLS (`X-Forwarded-Proto: https` with TRUST_PROXY configured).
 */
export const httpsOnly: RequestHandler = (req, _res, next) => {
  if (req.secure) return next();
  next(new AppError(ErrorCode.PermissionDenied, 'HTTPS is required: this API does not accept plain HTTP requests', { reason: 'https_required' }));
};

/** HSTS on every HTTPS answer: browsers then never try plain HTTP first. */
export function strictTransportSecurity(maxAgeSeconds: number): RequestHandler {
  const value = `max-age=${maxAgeSeconds}`;
  return (req, res, next) => {
    if (req.secure) res.setHeader('Strict-Transport-Security', value);
    next();
  };
}
