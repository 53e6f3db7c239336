import express, { type Express, type RequestHandler } from 'express';
import type { GatewayDeps } from './deps';
import { errorHandler, sendError } from './http/errors';
import { requestId } from './http/request-id';
import { accessLog } from './http/access-log';
import { deferBodyErrors } from './http/deferred-body';
import { refuseDeclaredOversize } from './http/declared-length';
import { pathAliases } from './http/path-aliases';
import { cors } from './http/cors';
import { strictTransportSecurity } from './http/https-only';
import { headerSizeLimit } from './http/header-size';
import { scopedRouter } from './http/scoped-router';
import { unknownRoute, wrongMethod } from './http/unknown-route';
import { parsedBodyRoutes, rawBodyRoutes } from './routes';
import { createGatewayMetrics, httpMetrics, observeErrors } from './metrics';
import { openAiResponderFor } from './openai/errors';

/** Whether `path` is `mount` or below it, as Express mounts a router. */
const mountedAt = (path: string, mount: string) => mount === '/' || path === mount || path.startsWith(`${mount}/`);

/** Static files, which set their own Cache-Control (serve-static keeps one already set). */
const STATIC_PREFIXES = ['/console', '/docs'];

/**
 * API answers are not kept by browsers or proxies: several carry secrets shown once (a new key, a
 * user token, a session). The console's and the reference page's files set their own; so does a stream.
 */
const noStore: RequestHandler = (req, res, next) => {
  if (!STATIC_PREFIXES.some((mount) => mountedAt(req.path, mount))) res.setHeader('Cache-Control', 'no-store');
  next();
};

/** JSON bodies: application/json and structured-suffix types (application/vnd.example+json). */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** The public HTTP surface: request ids, logging, body limits, routes, and the one error handler. */
export function createGatewayApp(deps: GatewayDeps): Express {
  const { config, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No ETag made from a body: an error's would read as the resource's; the routes that version something set their own.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(requestId);
  app.use(noStore);
  app.use(httpMetrics(app, (deps.metrics ??= createGatewayMetrics())));
  app.use(pathAliases);
  // The docs surface checks the size itself, so its 431 carries the envelope and the rate-limit headers.
  app.use(headerSizeLimit((path) => path.startsWith('/api/')));
  if (deps.recorder) app.use(deps.recorder.middleware());
  app.use(cors(config.CORS_ORIGINS));
  if (config.HSTS_MAX_AGE_SECONDS > 0) app.use(strictTransportSecurity(config.HSTS_MAX_AGE_SECONDS));
  app.use(accessLog(log));
  // The docs API answers a wrong method after its authentication (routes/api-surface.ts).
  const wrongMethodHere = wrongMethod(deps.book, openAiResponderFor);
  app.use((req, res, next) => (req.path.startsWith('/api/') ? next() : wrongMethodHere(req, res, next)));
  for (const router of rawBodyRoutes(deps)) app.use(scopedRouter(router));
  // The largest JSON body of a path, most specific first: the first parser that matches reads the body.
  const jsonLimits: Array<[mount: string, limit: number]> = [
    ['/api/v1/documents/bulk', config.BULK_BODY_LIMIT_BYTES],
    ['/api/v1/documents', config.DOCUMENT_BODY_LIMIT_BYTES],
    ['/', config.BODY_LIMIT_BYTES],
  ];
  app.use(refuseDeclaredOversize((path) => jsonLimits.find(([mount]) => mountedAt(path, mount))![1]));
  for (const [mount, limit] of jsonLimits) app.use(mount, deferBodyErrors(express.json({ limit, strict: false, type: JSON_TYPES })));
  app.use(deferBodyErrors(express.urlencoded({ limit: config.BODY_LIMIT_BYTES, extended: false })));
  for (const router of parsedBodyRoutes(deps)) app.use(scopedRouter(router));
  app.use(unknownRoute(deps.book));
  app.use(observeErrors);
  app.use(errorHandler);
  return app;
}
