import type { Request } from 'express';
import { Transform } from 'node:stream';
import { AppError, ErrorCode } from '@tollgate/kit';

export const bodyTooLarge = (limit: number): AppError => new AppError(ErrorCode.PayloadTooLarge, `request body exceeds the limit of ${limit} bytes`);

/** The Content-Length check, before anything else runs: a declared body over the limit is 413 at once. */
export function checkDeclaredLength(req: Request, limit: number): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw bodyTooLarge(limit);
}

/**
 * The request body as a stream that counts bytes without parsing them: past `limit` it stops
 * forwarding, drains the rest of the client's body, and calls `onTooLarge` once (a chunked body
 * has no Content-Length to check up front).
 */
export function countedBody(req: Request, limit: number, onTooLarge: () => void): Transform {
  let seen = 0;
  let over = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (over) return callback();
      seen += chunk.length;
      if (seen <= limit) return callback(null, chunk);
      over = true;
      req.unpipe(counter);
      req.resume();
      onTooLarge();
      callback();
    },
  });
  return req.pipe(counter);
}
