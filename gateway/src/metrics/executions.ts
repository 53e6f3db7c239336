import type { Request, RequestHandler, Response } from 'express';
import { executionsTotal } from './counters';

const failedKey = Symbol('tollgate.metrics.executionFailed');

/** What an execution request is, known by the end of its response (a body may name the kind). */
export interface ExecutionLabel {
  kind: string;
  mode: 'sync' | 'async';
}

/** Marks a response whose status is already sent as a failed execution (e.g. an error event written into an open stream). */
export function markExecutionFailed(res: Response): void {
  (res.locals as Record<symbol, unknown>)[failedKey] = true;
}

/**
 * The outcome of an execution request: `cancelled` (the client left before the response ended),
 * `error` (a 5xx, or a stream that ended with an error event), `rejected` (a 4xx: key, limits,
 * validation, unknown app), else `ok` for a sync run or `submitted` for an async submission.
 */
function outcomeOf(res: Response, mode: ExecutionLabel['mode']): string {
  if (!res.writableFinished) return 'cancelled';
  if ((res.locals as Record<symbol, unknown>)[failedKey] === true || res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400) return 'rejected';
  return mode === 'async' ? 'submitted' : 'ok';
}

/**
 * Counts one execution request in `tollgate_executions_total{kind,outcome}` when its response ends
 * (finished or cut off). Put first in the route's `before`, so rejections by the key checks count too.
 * `labelOf` runs at the end; a request whose kind is never known (an unparsable model) is not counted.
 */
export function countExecution(labelOf: (req: Request) => ExecutionLabel | null): RequestHandler {
  return (req, res, next) => {
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      const label = labelOf(req);
      if (label) executionsTotal.inc({ kind: label.kind, outcome: outcomeOf(res, label.mode) });
    };
    res.once('finish', count);
    res.once('close', count);
    next();
  };
}
