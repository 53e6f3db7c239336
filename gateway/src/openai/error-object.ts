import { ErrorCode, type AppError, type FieldIssue } from '@tollgate/kit';

/** OpenAI's error object: what the official SDKs read (`error.message`, `.type`, `.code`, `.param`). */
export interface OpenAiError {
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

/** The field an issue names, as OpenAI writes `param`: the body path without `body` (`messages.0.content`), or the header/query name. */
function paramOf(issue: FieldIssue | undefined): string | null {
  if (!issue) return null;
  const [root, ...rest] = issue.loc;
  const path = root === 'body' || root === 'query' || root === 'path' || root === 'header' ? rest : issue.loc;
  return path.length > 0 ? path.join('.') : null;
}

/** A 422's issues as one sentence: `messages.0.role: Invalid option…; model: Required`. */
function issuesMessage(issues: FieldIssue[]): string {
  return issues.map((i) => (paramOf(i) ? `${paramOf(i)}: ${i.msg}` : i.msg)).join('; ');
}

/**
 * The OpenAI error object for one of our errors, in OpenAI's vocabulary:
 * 401 invalid_api_key, 403 permission_denied, 404 model_not_found (an app the key cannot run is an
 * unknown model), 409 conflict, 413 request_too_large, 422 invalid_request_error (status kept),
 * 429 insufficient_quota (quota used up) or rate_limit_exceeded (rpm, concurrency), 5xx server_error.
 */
export function openAiErrorOf(e: AppError): OpenAiError {
  const issues = e.details.issues;
  const plain = (type: string, code: string | null): OpenAiError => ({ message: e.message, type, code, param: null });
  switch (e.code) {
    case ErrorCode.InvalidArgument:
      return { message: issues?.length ? issuesMessage(issues) : e.message, type: 'invalid_request_error', code: issues?.[0]?.type ?? null, param: paramOf(issues?.[0]) };
    case ErrorCode.Unauthenticated:
      return plain('invalid_request_error', 'invalid_api_key');
    case ErrorCode.PermissionDenied:
      return plain('invalid_request_error', 'permission_denied');
    case ErrorCode.NotFound:
      return plain('invalid_request_error', 'model_not_found');
    case ErrorCode.AlreadyExists:
    case ErrorCode.Conflict:
    case ErrorCode.FailedPrecondition:
      return plain('invalid_request_error', 'conflict');
    case ErrorCode.PayloadTooLarge:
      return plain('invalid_request_error', 'request_too_large');
    case ErrorCode.MethodNotAllowed:
      return plain('invalid_request_error', 'method_not_allowed');
    case ErrorCode.UnsupportedMediaType:
      return plain('invalid_request_error', 'unsupported_media_type');
    case ErrorCode.ResourceExhausted:
      return isQuota(e) ? plain('insufficient_quota', 'insufficient_quota') : plain('requests', 'rate_limit_exceeded');
    case ErrorCode.DeadlineExceeded:
      return plain('server_error', 'timeout');
    case ErrorCode.Unavailable:
      return plain('server_error', 'service_unavailable');
    default:
      return plain('server_error', null);
  }
}

/** A 429 for a used-up quota (gateway check 6 or billing admission), not a rate or concurrency limit. */
export const isQuota = (e: AppError): boolean => e.code === ErrorCode.ResourceExhausted && (e.details.limit === 'quota' || /^insufficient quota/i.test(e.message));

/**
 * Whether an OpenAI SDK should retry (`x-should-retry`): the SDKs retry every 409 and 429 by default,
 * but a used-up quota or a reused Idempotency-Key answers the same however often it is sent.
 */
export function shouldRetry(e: AppError): boolean | undefined {
  if (isQuota(e) || e.code === ErrorCode.Conflict || e.code === ErrorCode.AlreadyExists || e.code === ErrorCode.FailedPrecondition) return false;
  return undefined;
}
