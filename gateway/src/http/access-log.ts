import type { RequestHandler, Response } from 'express';
import type { Logger } from '@tollgate/kit';

type Level = 'error' | 'warn' | 'info' | 'debug';

/** Probes and scrapes are not worth a line each. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The response passes on a model provider's failure: a 5xx, logged as a warning. */
export function markUpstreamFault(res: Response): void {
  res.locals.upstreamFault = true;
}

/** 503 with Retry-After is back-pressure working and a provider's failure is not Tollgate's (warn); other 5xx are faults; 4xx are the client's. */
function levelOf(res: Response): Level {
  if (res.statusCode === 503 && res.getHeader('retry-after') !== undefined) return 'warn';
  if (res.locals.upstreamFault === true) return 'warn';
  if (res.statusCode >= 500) return 'error';
  return res.statusCode >= 400 ? 'debug' : 'info';
}

/**
 * One line per request when its response ends (or the client leaves first): method, path, status and
 * time, with the request id. Nothing per request is allocated for a level that is off, and the
 * request's own logger (`requestLog`) is only made when something logs through it.
 */
export function accessLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.locals.log = log;
    if (!QUIET_PATHS.has(req.path)) {
      res.once('close', () => {
        if (!res.writableFinished) res.locals.clientLeft = true;
        const level = levelOf(res);
        if (!log.isLevelEnabled(level)) return;
        log[level](
          {
            requestId: (req as { id?: string }).id,
            req: { method: req.method, url: req.originalUrl },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(performance.now() - started),
          },
          res.writableFinished ? 'request completed' : 'request aborted',
        );
      });
    }
    next();
  };
}

/** The client closed the connection before the response was complete (what fails after that is no fault to report). */
export const clientLeft = (res: Response): boolean => res.locals?.clientLeft === true;

/**
 * A logger for what happens while serving `res`, bound to its request id; undefined outside the app
 * or when `level` is off (so nothing is built for a line that would be dropped).
 */
export function requestLog(res: Response, level: Level): Logger | undefined {
  const log = res.locals?.log as Logger | undefined;
  if (!log?.isLevelEnabled(level)) return undefined;
  return log.child({ requestId: res.getHeader('x-request-id') });
}
