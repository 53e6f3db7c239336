import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';
import type { RouteBook } from './route-book';
import { sendError } from './errors';
import { allows, routeMethods, routesAt } from './route-methods';

/** Answers an error in a surface's own shape (e.g. the OpenAI error object), or passes it on to the router's error handlers. */
export type ErrorResponder = (req: Request, res: Response, err: unknown, next: NextFunction) => void;

const plainResponder: ErrorResponder = (_req, res, err) => sendError(res, err);

/** For a router whose error handlers add to every refusal (e.g. the docs API's rate-limit headers). */
export const passOn: ErrorResponder = (_req, _res, err, next) => next(err);

function methodNotAllowed(req: Request, res: Response, next: NextFunction, path: string, allow: string[], respond: ErrorResponder = plainResponder): void {
  res.setHeader('Allow', allow.join(', '));
  respond(req, res, new AppError(ErrorCode.MethodNotAllowed, `${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`), next);
}

/**
 * A path the book serves, asked with a method it does not serve there: 405 with `Allow`, before
 * a route with a parameter could take the path's fixed segment for its value (GET
 * /v1/task-query/batch is not a task number). Mounted before the routes (the docs API's after its
 * authentication); OPTIONS is left to the routes and the API surface. `respondFor`: the responder
 * of the routes with these tags, when they answer errors in a shape of their own.
 */
export function wrongMethod(book: RouteBook, respondFor?: (tags: Set<string>) => ErrorResponder | undefined): RequestHandler {
  const at = routesAt(book);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const path = req.baseUrl + req.path;
    const { allow, tags } = at(path);
    if (allow.length === 0 || allows(allow, req.method)) return next();
    methodNotAllowed(req, res, next, path, allow, respondFor?.(tags));
  };
}

/** What no route answered: 405 with `Allow` when the path is served with other methods, else 404. */
export function unknownRoute(book: RouteBook): RequestHandler {
  const methodsAt = routeMethods(book);
  return (req, res, next) => {
    const allow = methodsAt(req.path);
    if (allow.length === 0) return sendError(res, AppError.notFound(`no route for ${req.method} ${req.path}`));
    methodNotAllowed(req, res, next, req.path, allow);
  };
}
