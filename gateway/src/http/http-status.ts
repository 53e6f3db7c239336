import { ErrorCode } from '@tollgate/kit';

/** The one table from domain/gRPC error codes to HTTP statuses. */
export const httpStatusFor: Record<ErrorCode, number> = {
  [ErrorCode.InvalidArgument]: 422,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.PermissionDenied]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.MethodNotAllowed]: 405,
  [ErrorCode.AlreadyExists]: 409,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.FailedPrecondition]: 409,
  [ErrorCode.PreconditionFailed]: 412,
  [ErrorCode.PreconditionRequired]: 428,
  [ErrorCode.ResourceExhausted]: 429,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.HeadersTooLarge]: 431,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.DeadlineExceeded]: 504,
  [ErrorCode.Internal]: 500,
};
