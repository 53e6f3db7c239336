import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { isAppError } from '@tollgate/kit';
import { quotaRejectionsTotal } from './counters';
import type { GatewayMetrics } from './gateway-metrics';

/** Label for requests no route matched: one series, however many paths are probed. */
export const UNMATCHED_ROUTE = '(unmatched)';

const QUOTA_LIMIT = 'quota';
const limitKey = Symbol('tollgate.metrics.limit');

/**
 * Captures the route template at the moment the router matches it (`req.route` is assigned then,
 * while `req.baseUrl` still holds the mount path; after an error both may have moved on).
 */
function captureTemplate(req: Request): () => string {
  let template: string | undefined;
  let current: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (route: { path?: unknown }) => {
      current = route;
      if (typeof route?.path === 'string') template = `${req.baseUrl}${route.path}`;
    },
  });
  return () => template ?? UNMATCHED_ROUTE;
}

/** Counts and times every request by method, route template and status, once its response has finished or been cut off. */
export function httpMetrics(metrics: GatewayMetrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.requestSeconds.startTimer();
    const template = captureTemplate(req);
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method, route: template(), status: String(res.statusCode) };
      stop(labels);
      metrics.requestsTotal.inc(labels);
      if (res.statusCode === 429 && (res.locals as Record<symbol, unknown>)[limitKey] === QUOTA_LIMIT) quotaRejectionsTotal.inc();
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

/** Sits just before the error handler: remembers which limit a RESOURCE_EXHAUSTED error names, then passes the error on. */
export const observeErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (isAppError(err) && typeof err.details.limit === 'string') (res.locals as Record<symbol, unknown>)[limitKey] = err.details.limit;
  next(err);
};
