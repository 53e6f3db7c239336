import type { RequestHandler } from 'express';
import { AppError } from '@tollgate/kit';
import type { RouteBook } from './route-book';
import { sendEnvelope } from './envelope';

const toRegExp = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);

/**
 * OPTIONS on the docs API: answered in the envelope (`data.allow`, and an `Allow` header) with the
 * rate-limit headers, without authentication (browsers send preflights without credentials).
 * An unknown path is a 404 in the envelope. Mounted after the rate limit counted the request.
 */
export function optionsRoute(book: RouteBook): RequestHandler {
  let table: Array<{ re: RegExp; method: string }> | undefined;
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    table ??= book.routes.filter((r) => r.path.startsWith('/api/')).map((r) => ({ re: toRegExp(r.path), method: r.method.toUpperCase() }));
    const path = `/api${req.path}`;
    const methods = [...new Set(table.filter((r) => r.re.test(path)).map((r) => r.method))];
    if (methods.length === 0) return next(AppError.notFound(`no route for OPTIONS ${path}`));
    const allow = [...methods, 'OPTIONS'];
    res.setHeader('Allow', allow.join(', '));
    sendEnvelope(res, { allow });
  };
}
