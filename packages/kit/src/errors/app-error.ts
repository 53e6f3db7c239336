/** Stable domain error codes; each boundary maps them exactly once (see grpc/status-map.ts, gateway). */
export const ErrorCode = {
  InvalidArgument: 'INVALID_ARGUMENT',
  Unauthenticated: 'UNAUTHENTICATED',
  PermissionDenied: 'PERMISSION_DENIED',
  NotFound: 'NOT_FOUND',
  /** The path exists, not with this method (HTTP 405 with Allow). */
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  AlreadyExists: 'ALREADY_EXISTS',
  Conflict: 'CONFLICT',
  FailedPrecondition: 'FAILED_PRECONDITION',
  /** A conditional write whose condition (If-Match) no longer holds (HTTP 412). */
  PreconditionFailed: 'PRECONDITION_FAILED',
  /** A write that must be conditional came without its condition (HTTP 428). */
  PreconditionRequired: 'PRECONDITION_REQUIRED',
  ResourceExhausted: 'RESOURCE_EXHAUSTED',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** A body in a media type the endpoint does not read (HTTP 415). */
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  HeadersTooLarge: 'HEADERS_TOO_LARGE',
  Unavailable: 'UNAVAILABLE',
  DeadlineExceeded: 'DEADLINE_EXCEEDED',
  Internal: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One invalid field, in the spec's 422 item shape. */
export interface FieldIssue {
  loc: string[];
  msg: string;
  type: string;
}

export interface AppErrorDetails {
  /** Field-level problems of an INVALID_ARGUMENT error. */
  issues?: FieldIssue[];
  /** Seconds a client should wait before retrying (RESOURCE_EXHAUSTED). */
  retryAfterSeconds?: number;
  /** Which limit was hit: quota, rpm, concurrency, hourly. */
  limit?: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: AppErrorDetails;

  constructor(code: ErrorCode, message: string, details: AppErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  static invalid(issues: FieldIssue[], message = 'request validation failed'): AppError {
    return new AppError(ErrorCode.InvalidArgument, message, { issues });
  }

  static field(loc: string[], msg: string, type = 'value_error'): AppError {
    return AppError.invalid([{ loc, msg, type }], msg);
  }

  static notFound(message: string): AppError {
    return new AppError(ErrorCode.NotFound, message);
  }

  static unauthenticated(message: string): AppError {
    return new AppError(ErrorCode.Unauthenticated, message);
  }

  static forbidden(message: string): AppError {
    return new AppError(ErrorCode.PermissionDenied, message);
  }

  static conflict(message: string, details: AppErrorDetails = {}): AppError {
    return new AppError(ErrorCode.Conflict, message, details);
  }

  static exhausted(message: string, details: AppErrorDetails = {}): AppError {
    return new AppError(ErrorCode.ResourceExhausted, message, details);
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
