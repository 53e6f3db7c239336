import type { Request, RequestHandler } from 'express';
import { AppError } from '@tollgate/kit';
import type { RouteBook } from './route-book';
import { sendEnvelope } from './envelope';
import { routeMethods } from './route-methods';

/**
 * OPTIONS on the docs API: answered in the envelope (`data.allow`, and an `Allow` header) with the
 * rate-limit headers, without authentication (browsers send preflights without credentials).
 * An unknown path is a 404 in the envelope. Mounted after the rate limit counted the request.
 */
export function optionsRoute(book: RouteBook, pathOf: (req: Request) => string = (req) => `/api${req.path}`): RequestHandler {
  const methodsAt = routeMethods(book);
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const path = pathOf(req);
    const methods = methodsAt(path);
    if (methods.length === 0) return next(AppError.notFound(`no route for OPTIONS ${path}`));
    const allow = [...methods, 'OPTIONS'];
    res.setHeader('Allow', allow.join(', '));
    sendEnvelope(res, { allow });
  };
}
