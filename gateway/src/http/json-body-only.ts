import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@tollgate/kit';

/** application/json, with parameters (charset) or as a structured suffix (application/vnd.x+json). */
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/** The request carries a body: a length above 0, or a chunked one. */
const hasBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** A JSON-only API: a body in any other media type (or in none) is a 415, never read as something else. */
export const jsonBodyOnly: RequestHandler = (req, _res, next) => {
  if (!hasBody(req.headers) || JSON_TYPE.test(req.headers['content-type'] ?? '')) return next();
  const given = req.headers['content-type'] ? `Content-Type ${req.headers['content-type'].slice(0, 100)}` : 'no Content-Type';
  next(new AppError(ErrorCode.UnsupportedMediaType, `request bodies must be JSON with Content-Type: application/json (got ${given})`));
};
