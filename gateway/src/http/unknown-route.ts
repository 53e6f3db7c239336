import type { RequestHandler, Response } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';
import type { RouteBook } from './route-book';
import { sendError } from './errors';
import { allows, routeMethods } from './route-methods';

function methodNotAllowed(res: Response, method: string, path: string, allow: string[]): void {
  res.setHeader('Allow', allow.join(', '));
  sendError(res, new AppError(ErrorCode.MethodNotAllowed, `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`));
}

/**
 * A path the book serves, asked with a method it does not serve there: 405 with `Allow`, before
 * a route with a parameter could take the path's fixed segment for its value (GET
 * /v1/task-query/batch is not a task number). Mounted before the routes (the docs API's after its
 * authentication); OPTIONS is left to the routes and the API surface.
 */
export function wrongMethod(book: RouteBook): RequestHandler {
  const methodsAt = routeMethods(book);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const path = req.baseUrl + req.path;
    const allow = methodsAt(path);
    if (allow.length === 0 || allows(allow, req.method)) return next();
    methodNotAllowed(res, req.method, path, allow);
  };
}

/** What no route answered: 405 with `Allow` when the path is served with other methods, else 404. */
export function unknownRoute(book: RouteBook): RequestHandler {
  const methodsAt = routeMethods(book);
  return (req, res) => {
    const allow = methodsAt(req.path);
    if (allow.length === 0) return sendError(res, AppError.notFound(`no route for ${req.method} ${req.path}`));
    methodNotAllowed(res, req.method, req.path, allow);
  };
}
