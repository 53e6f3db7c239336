import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';

/** Largest request line plus headers the gateway serves (docs/deployment.md, "Input limits"); 431 beyond. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;
/**
 * What Node's HTTP parser itself accepts before it cuts the connection: larger than the limit
 * above, so that most oversized requests reach the routes and are answered in their surface's shape.
 */
export const PARSER_MAX_HEADER_BYTES = 128 * 1024;

function headBytes(req: Parameters<RequestHandler>[0]): number {
  let n = Buffer.byteLength(req.method) + Buffer.byteLength(req.originalUrl ?? req.url) + 12;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 1) n += Buffer.byteLength(raw[i]) + 2;
  return n;
}

/** 431 when the request line and headers exceed MAX_REQUEST_HEAD_BYTES. `skip` leaves a request to a later check (the docs surface has its own). */
export function headerSizeLimit(skip: (path: string) => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    if (skip(req.path)) return next();
    if (headBytes(req) > MAX_REQUEST_HEAD_BYTES) {
      // A client that sends such heads is not one to keep a connection open for.
      res.setHeader('Connection', 'close');
      return next(new AppError(ErrorCode.HeadersTooLarge, `the request line and headers exceed ${MAX_REQUEST_HEAD_BYTES} bytes`));
    }
    next();
  };
}
