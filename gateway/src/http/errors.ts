import type { ErrorRequestHandler, Response } from 'express';
import { AppError, ErrorCode, isAppError } from '@tollgate/kit';
import { httpStatusFor } from './http-status';
import { surfaceOf } from './surface';
import { clientLeft, markUpstreamFault, requestLog } from './access-log';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Anything thrown in a route (body-parser errors included) → an AppError; unknown errors become INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = err as BodyParserError;
  switch (e?.type) {
    case 'entity.parse.failed':
      return AppError.invalid([{ loc: ['body'], msg: `malformed JSON: ${e.message}`, type: 'json_invalid' }], 'malformed JSON');
    case 'entity.too.large':
      return new AppError(ErrorCode.PayloadTooLarge, `request body exceeds the limit of ${e.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return AppError.invalid([{ loc: ['body'], msg: e.message, type: 'encoding_invalid' }], e.message);
    case 'request.aborted':
      return AppError.invalid([{ loc: ['body'], msg: 'request aborted', type: 'request_aborted' }], 'request aborted');
    case 'parameters.too.many':
      return new AppError(ErrorCode.PayloadTooLarge, 'the form has too many fields');
    default:
      return clientMistake(e) ?? new AppError(ErrorCode.Internal, 'internal server error', {}, { cause: err });
  }
}

/** Errors of the HTTP layer that say they are the client's (a bad path escape, a body that fails to decode). */
function clientMistake(e: BodyParserError | undefined): AppError | null {
  if (e instanceof URIError) return AppError.invalid([{ loc: ['path'], msg: 'malformed percent-encoding in the path', type: 'path_invalid' }], 'malformed percent-encoding in the path');
  const status = e?.status ?? (e as { statusCode?: number } | undefined)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return new AppError(ErrorCode.PayloadTooLarge, e!.message);
  return AppError.invalid([{ loc: ['body'], msg: `the request body could not be read: ${e!.message}`, type: 'body_invalid' }], 'the request body could not be read');
}

/** A model provider failed or timed out: the 5xx is passed on, the fault is not Tollgate's. */
const isUpstreamFault = (e: AppError): boolean => e.details.fault === 'upstream';

/** Adds to the task API's error body (e.g. the OpenAI error object on the OpenAI-style routes); the status stays. */
export type ErrorBodyShape = (appError: AppError, status: number, body: Record<string, unknown>) => Record<string, unknown>;

export function sendError(res: Response, err: unknown, shape?: ErrorBodyShape): void {
  const appError = toAppError(err);
  const status = httpStatusFor[appError.code];
  const requestId = res.getHeader('x-request-id');
  if (clientLeft(res) && status !== 500) {
    // Its work was cancelled because it left: nobody gets an answer, and it is no fault of Tollgate's (a 500 still is).
    requestLog(res, 'debug')?.debug({ code: appError.code, msg: appError.message }, 'client left before the answer');
    return void res.end();
  }
  // A refusal under load (503 with Retry-After) is back-pressure working, not a fault: no stack.
  if (status === 503 && appError.details.retryAfterSeconds !== undefined) requestLog(res, 'warn')?.warn({ code: appError.code, msg: appError.message }, 'request shed');
  else if (isUpstreamFault(appError)) {
    markUpstreamFault(res);
    requestLog(res, 'warn')?.warn({ code: appError.code, task_number: appError.details.task_number, reason: appError.message }, 'upstream failed');
  } else if (status >= 500) requestLog(res, 'error')?.error({ err: (appError.cause as Error) ?? appError }, 'request failed');
  else requestLog(res, 'debug')?.debug({ code: appError.code, msg: appError.message }, 'request rejected');
  if (appError.details.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(appError.details.retryAfterSeconds))));
  if (res.headersSent) return void res.end();

  if (surfaceOf(res) === 'docs') {
    const data = appError.details.issues ? { errors: appError.details.issues } : {};
    res.status(status).json({ code: status, message: appError.message, data, timestamp: new Date().toISOString(), request_id: requestId });
    return;
  }
  const body =
    appError.code === ErrorCode.InvalidArgument
      ? { detail: appError.details.issues ?? [{ loc: ['body'], msg: appError.message, type: 'value_error' }] }
      : status >= 500
        ? { detail: appError.message, request_id: requestId }
        : { detail: appError.message };
  res.status(status).json(shape ? shape(appError, status, body) : body);
}

export const errorHandler: ErrorRequestHandler = (err, _req, res, _next) => sendError(res, err);
