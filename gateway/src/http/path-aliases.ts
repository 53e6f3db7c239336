import type { RequestHandler } from 'express';

const DOCS_PREFIX = /^\/v1\/docs(?=$|[/?])/;

/**
 * Aliases the spec's samples use, served as the same API by rewriting to the canonical path:
 * `/api/<x>` → `/api/v1/<x>`, `/v1/docs[/<x>]` → `/api/v1/documents[/<x>]` (the document routes,
 * with the docs API's envelope, HTTPS rule and rate limit), `/v1/apikeys/<x>` → `/apikeys/<x>`.
 */
export const pathAliases: RequestHandler = (req, _res, next) => {
  if (DOCS_PREFIX.test(req.url)) req.url = req.url.replace(DOCS_PREFIX, '/api/v1/documents');
  else if (req.url.startsWith('/api/') && !req.url.startsWith('/api/v1/') && req.url !== '/api/v1') req.url = `/api/v1/${req.url.slice(5)}`;
  else if (req.url.startsWith('/v1/apikeys/')) req.url = req.url.slice(3);
  next();
};
