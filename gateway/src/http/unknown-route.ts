import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';
import type { RouteBook } from './route-book';
import { sendError } from './errors';
import { routeMethods } from './route-methods';

/** What no route answered: 405 with `Allow` when the path is served with other methods, else 404. */
export function unknownRoute(book: RouteBook): RequestHandler {
  const methodsAt = routeMethods(book);
  return (req, res) => {
    const allow = methodsAt(req.path);
    if (allow.length === 0) return sendError(res, AppError.notFound(`no route for ${req.method} ${req.path}`));
    res.setHeader('Allow', allow.join(', '));
    sendError(res, new AppError(ErrorCode.MethodNotAllowed, `${req.method} is not allowed on ${req.path}; allowed: ${allow.join(', ')}`));
  };
}
