import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError } from '../errors/app-error';
import { isTransientDbError } from '../db/transient-errors';

const toGrpc: Record<ErrorCode, GrpcStatus> = {
  [ErrorCode.InvalidArgument]: GrpcStatus.INVALID_ARGUMENT,
  [ErrorCode.Unauthenticated]: GrpcStatus.UNAUTHENTICATED,
  [ErrorCode.PermissionDenied]: GrpcStatus.PERMISSION_DENIED,
  [ErrorCode.NotFound]: GrpcStatus.NOT_FOUND,
  [ErrorCode.MethodNotAllowed]: GrpcStatus.UNIMPLEMENTED,
  [ErrorCode.AlreadyExists]: GrpcStatus.ALREADY_EXISTS,
  [ErrorCode.Conflict]: GrpcStatus.ABORTED,
  [ErrorCode.FailedPrecondition]: GrpcStatus.FAILED_PRECONDITION,
  [ErrorCode.PreconditionFailed]: GrpcStatus.FAILED_PRECONDITION,
  [ErrorCode.PreconditionRequired]: GrpcStatus.FAILED_PRECONDITION,
  [ErrorCode.ResourceExhausted]: GrpcStatus.RESOURCE_EXHAUSTED,
  [ErrorCode.PayloadTooLarge]: GrpcStatus.OUT_OF_RANGE,
  [ErrorCode.UnsupportedMediaType]: GrpcStatus.INVALID_ARGUMENT,
  [ErrorCode.HeadersTooLarge]: GrpcStatus.OUT_OF_RANGE,
  [ErrorCode.Unavailable]: GrpcStatus.UNAVAILABLE,
  [ErrorCode.DeadlineExceeded]: GrpcStatus.DEADLINE_EXCEEDED,
  [ErrorCode.Internal]: GrpcStatus.INTERNAL,
};

const fromGrpc = new Map<number, ErrorCode>([
  [GrpcStatus.INVALID_ARGUMENT, ErrorCode.InvalidArgument],
  [GrpcStatus.UNAUTHENTICATED, ErrorCode.Unauthenticated],
  [GrpcStatus.PERMISSION_DENIED, ErrorCode.PermissionDenied],
  [GrpcStatus.NOT_FOUND, ErrorCode.NotFound],
  [GrpcStatus.ALREADY_EXISTS, ErrorCode.AlreadyExists],
  [GrpcStatus.ABORTED, ErrorCode.Conflict],
  [GrpcStatus.FAILED_PRECONDITION, ErrorCode.FailedPrecondition],
  [GrpcStatus.RESOURCE_EXHAUSTED, ErrorCode.ResourceExhausted],
  [GrpcStatus.OUT_OF_RANGE, ErrorCode.PayloadTooLarge],
  [GrpcStatus.UNAVAILABLE, ErrorCode.Unavailable],
  [GrpcStatus.DEADLINE_EXCEEDED, ErrorCode.DeadlineExceeded],
  [GrpcStatus.CANCELLED, ErrorCode.Unavailable],
]);

/** Trailing metadata key that carries an AppError's code and details across gRPC. */
export const ERROR_METADATA_KEY = 'tollgate-error';

export interface GrpcErrorLike {
  code: GrpcStatus;
  details: string;
  metadata: Metadata;
}

/** JSON with every non-ASCII character escaped: metadata values must be printable ASCII (status strings like 启用 are not). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A database that cannot take more work right now (its pool's wait for a connection ran out, too
 * many connections, Prisma's transaction or pool timeouts): back-pressure, not a fault.
 */
export function isCapacityError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return (
    e?.code === 'P2024' ||
    e?.code === 'P2028' ||
    e?.code === '53300' ||
    /timeout exceeded when trying to connect|too many clients already|Unable to start a transaction in the given time/i.test(e?.message ?? '')
  );
}

/** Longest status message a service sends: messages may quote client input, and a gRPC trailer is no place for megabytes. */
export const MAX_STATUS_MESSAGE_CHARS = 1_000;
/** Longest error-details metadata value (JSON) a service sends; larger details are cut down to their field issues, then dropped. */
export const MAX_ERROR_METADATA_CHARS = 8_000;
/** Longest text of any one field issue (msg, each loc part) carried in the metadata. */
const MAX_ISSUE_TEXT_CHARS = 200;
const MAX_ISSUES = 20;

/** `text` cut to `max` characters (an ellipsis marks the cut); never splits a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The error details, bounded: issue texts cut, at most MAX_ISSUES issues, and the whole JSON under MAX_ERROR_METADATA_CHARS. */
function boundedDetailsJson(code: ErrorCode, details: AppError['details']): string {
  const full = asciiJson({ code, details });
  if (full.length <= MAX_ERROR_METADATA_CHARS) return full;
  const cut = (t: unknown) => (typeof t === 'string' ? truncateText(t, MAX_ISSUE_TEXT_CHARS) : t);
  const issues = details.issues?.slice(0, MAX_ISSUES).map((i) => ({ loc: i.loc.slice(0, 10).map((l) => cut(l) as string), msg: cut(i.msg) as string, type: cut(i.type) as string }));
  const slim: AppError['details'] = {};
  for (const [k, v] of Object.entries(details)) if (k !== 'issues' && (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= MAX_ISSUE_TEXT_CHARS))) slim[k] = v;
  for (let n = issues?.length ?? 0; ; n = Math.floor(n / 2)) {
    if (issues) slim.issues = issues.slice(0, Math.max(n, 1));
    const reduced = asciiJson({ code, details: slim });
    if (reduced.length <= MAX_ERROR_METADATA_CHARS) return reduced;
    if (n <= 1) return asciiJson({ code, details: {} });
  }
}

/**
 * Domain error (or anything thrown) → the gRPC error a handler reports. Unknown errors become
 * INTERNAL without leaking their message; the message and the details metadata are bounded
 * (MAX_STATUS_MESSAGE_CHARS, MAX_ERROR_METADATA_CHARS) whatever client text they quote.
 */
export function toGrpcError(err: unknown): GrpcErrorLike {
  const appError = isAppError(err)
    ? err
    : isTransientDbError(err) || isCapacityError(err)
      ? new AppError(ErrorCode.Unavailable, 'the database is busy; try again shortly', { retryAfterSeconds: 1 }, { cause: err })
      : new AppError(ErrorCode.Internal, 'internal error', {}, { cause: err });
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, boundedDetailsJson(appError.code, appError.details));
  return { code: toGrpc[appError.code], details: truncateText(appError.message, MAX_STATUS_MESSAGE_CHARS), metadata };
}

/**
 * Public messages of failures that did not come from a service's own code (the channel, a
 * deadline, a refused stream): stable, so gRPC internals and addresses never reach a client.
 */
export const TRANSPORT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.Unavailable]: 'a backend service is unavailable; try again shortly',
  [ErrorCode.DeadlineExceeded]: 'a backend service did not answer in time; try again shortly',
  [ErrorCode.Internal]: 'internal error',
};

/** gRPC error received by a client → the same AppError the server threw. */
export function fromGrpcError(err: ServiceError | Error): AppError {
  const svcErr = err as Partial<ServiceError>;
  const raw = svcErr.metadata?.get(ERROR_METADATA_KEY)?.[0];
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw) as { code: ErrorCode; details?: Record<string, unknown> };
      return new AppError(parsed.code, truncateText(svcErr.details ?? err.message, MAX_STATUS_MESSAGE_CHARS), parsed.details ?? {}, { cause: err });
    } catch {
      // fall through to the status code
    }
  }
  const code = (svcErr.code !== undefined && fromGrpc.get(svcErr.code)) || ErrorCode.Internal;
  const message = TRANSPORT_MESSAGES[code] ?? `a backend service refused the call (${code.toLowerCase()})`;
  return new AppError(code, message, { transport: true }, { cause: err });
}

/**
 * An error as the fields of one item of a batch answer: what a unary call would have failed with
 * (its gRPC status code, status message and details metadata), so the caller gets the same
 * AppError either way.
 */
export interface ItemError {
  code: number;
  message: string;
  details: string;
}

export function toItemError(err: unknown): ItemError {
  const g = toGrpcError(err);
  return { code: g.code, message: g.details, details: String(g.metadata.get(ERROR_METADATA_KEY)[0] ?? '') };
}

export function fromItemError(e: ItemError): AppError {
  const metadata = new Metadata();
  if (e.details) metadata.set(ERROR_METADATA_KEY, e.details);
  return fromGrpcError(Object.assign(new Error(e.message), { code: e.code as GrpcStatus, details: e.message, metadata }));
}
