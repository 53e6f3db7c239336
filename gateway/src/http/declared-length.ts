import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';

/**
 * A body whose Content-Length is over the limit of its path is refused at once (413, connection
 * closed), before a byte of it is read: the body parsers would read all of it first, holding the
 * connection as long as the client takes to upload it.
 */
export function refuseDeclaredOversize(limitFor: (path: string) => number): RequestHandler {
  return (req, res, next) => {
    const declared = req.headers['content-length'];
    if (declared === undefined) return next();
    const limit = limitFor(req.path);
    if (Number(declared) <= limit) return next();
    res.setHeader('Connection', 'close');
    next(new AppError(ErrorCode.PayloadTooLarge, `request body exceeds the limit of ${limit} bytes`));
  };
}
