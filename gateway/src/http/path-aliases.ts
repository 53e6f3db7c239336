import type { RequestHandler } from 'express';

/**
 * Aliases the spec's samples use, served as the same API by rewriting to the canonical path:
 * `/api/<x>` → `/api/v1/<x>`, `/v1/apikeys/<x>` → `/apikeys/<x>`.
 */
export const pathAliases: RequestHandler = (req, _res, next) => {
  if (req.url.startsWith('/api/') && !req.url.startsWith('/api/v1/') && req.url !== '/api/v1') req.url = `/api/v1/${req.url.slice(5)}`;
  else if (req.url.startsWith('/v1/apikeys/')) req.url = req.url.slice(3);
  next();
};
