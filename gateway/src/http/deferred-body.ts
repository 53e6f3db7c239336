import type { RequestHandler, Response } from 'express';

interface ParserError extends Error {
  status?: number;
}

/**
 * Runs a body parser but keeps a malformed body's error until the route has authenticated the
 * caller (the spec's checks come first: no key → 401 even when the JSON is broken). A body too
 * large (bytes or form fields) is still refused at once.
 */
export function deferBodyErrors(parser: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parser(req, res, (err?: unknown) => {
      if (err && (err as ParserError).status !== 413) {
        res.locals.bodyError = err;
        return next();
      }
      next(err as Error | undefined);
    });
}

/** Throws the body error kept by deferBodyErrors, if any; called once the caller is authenticated. */
export function takeBodyError(res: Response): void {
  const err = res.locals.bodyError as unknown;
  if (err) {
    res.locals.bodyError = undefined;
    throw err;
  }
}
