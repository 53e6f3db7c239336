import type { ErrorRequestHandler, Express, Request, RequestHandler } from 'express';
import { isAppError } from '@tollgate/kit';
import { quotaRejectionsTotal } from './counters';
import type { GatewayMetrics } from './gateway-metrics';

/** Label for requests no route matched: one series, however many paths are probed. */
export const UNMATCHED_ROUTE = '(unmatched)';

const QUOTA_LIMIT = 'quota';
const limitKey = Symbol('tollgate.metrics.limit');

const ROUTE = Symbol('tollgate.metrics.route');
const TEMPLATE = Symbol('tollgate.metrics.route-template');
type Tracked = Request & { [ROUTE]?: unknown; [TEMPLATE]?: string };

/**
 * Makes `req.route` an accessor of the app's request prototype, installed once: it records the
 * route template at the moment the router assigns the route (while `req.baseUrl` still holds the
 * mount path; after an error both may have moved on). An accessor defined on each request instead
 * gives every request a hidden class of its own, held by V8 beyond the request: its objects then
 * survive young-generation collections (docs/benchmarks.md, "Requests that outlive themselves").
 */
function captureRouteTemplates(app: Express): void {
  if (Object.getOwnPropertyDescriptor(app.request, 'route')?.set) return;
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    enumerable: true,
    get(this: Tracked) {
      return this[ROUTE];
    },
    set(this: Tracked, route: { path?: unknown } | undefined) {
      this[ROUTE] = route;
      if (typeof route?.path === 'string') this[TEMPLATE] = `${this.baseUrl}${route.path}`;
    },
  });
}

const templateOf = (req: Request) => (req as Tracked)[TEMPLATE] ?? UNMATCHED_ROUTE;

/** Counts and times every request of `app` by method, route template and status, once its response has finished or been cut off. */
export function httpMetrics(app: Express, metrics: GatewayMetrics): RequestHandler {
  captureRouteTemplates(app);
  return (req, res, next) => {
    const stop = metrics.requestSeconds.startTimer();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method, route: templateOf(req), status: String(res.statusCode) };
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
