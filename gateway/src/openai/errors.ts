import type { ErrorRequestHandler, Request, Response } from 'express';
import { sendError, toAppError, type ErrorBodyShape } from '../http/errors';
import { observeErrors } from '../metrics';
import { openAiErrorOf, shouldRetry } from './error-object';

/** The route book's tag of the routes whose errors carry OpenAI's error object. */
export const OPENAI_COMPATIBLE_TAG = 'OpenAI-compatible';

/** The task API's body with OpenAI's error object beside it: `{"error": {message, type, code, param}, "detail": …}`. */
const withOpenAiError: ErrorBodyShape = (appError, _status, body) => ({ error: openAiErrorOf(appError), ...body });

/** Answers an error the OpenAI way (metrics see it as the app's error handler would). */
export function sendOpenAiError(req: Request, res: Response, err: unknown): void {
  observeErrors(err, req, res, (seen: unknown) => {
    const appError = toAppError(seen);
    const retry = shouldRetry(appError);
    if (retry !== undefined && !res.headersSent) res.setHeader('x-should-retry', String(retry));
    sendError(res, appError, withOpenAiError);
  });
}

/**
 * The error mapping of the OpenAI-style routes (mounted at the end of their router): every error
 * they raise carries the OpenAI error object beside the spec's `detail`, so an OpenAI SDK shows the
 * server's text. The spec's own routes keep their exact `{detail}` (the app's error handler).
 */
export const openAiErrors: ErrorRequestHandler = (err, req, res, _next) => sendOpenAiError(req, res, err);

/** For errors answered before a route runs (a wrong method): the OpenAI way on the OpenAI-style routes. */
export const openAiResponderFor = (tags: Set<string>) => (tags.has(OPENAI_COMPATIBLE_TAG) ? sendOpenAiError : undefined);
