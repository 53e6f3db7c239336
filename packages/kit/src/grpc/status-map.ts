import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError, ErrorCode, isAppError } from '../errors/app-error';

const toGrpc: Record<ErrorCode, GrpcStatus> = {
  [ErrorCode.InvalidArgument]: GrpcStatus.INVALID_ARGUMENT,
  [ErrorCode.Unauthenticated]: GrpcStatus.UNAUTHENTICATED,
  [ErrorCode.PermissionDenied]: GrpcStatus.PERMISSION_DENIED,
  [ErrorCode.NotFound]: GrpcStatus.NOT_FOUND,
  [ErrorCode.AlreadyExists]: GrpcStatus.ALREADY_EXISTS,
  [ErrorCode.Conflict]: GrpcStatus.ABORTED,
  [ErrorCode.FailedPrecondition]: GrpcStatus.FAILED_PRECONDITION,
  [ErrorCode.ResourceExhausted]: GrpcStatus.RESOURCE_EXHAUSTED,
  [ErrorCode.PayloadTooLarge]: GrpcStatus.OUT_OF_RANGE,
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

/** Domain error (or anything thrown) → the gRPC error a handler reports. Unknown errors become INTERNAL without leaking their message. */
export function toGrpcError(err: unknown): GrpcErrorLike {
  const appError = isAppError(err) ? err : new AppError(ErrorCode.Internal, 'internal error', {}, { cause: err });
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, asciiJson({ code: appError.code, details: appError.details }));
  return { code: toGrpc[appError.code], details: appError.message, metadata };
}

/** gRPC error received by a client → the same AppError the server threw. */
export function fromGrpcError(err: ServiceError | Error): AppError {
  const svcErr = err as Partial<ServiceError>;
  const raw = svcErr.metadata?.get(ERROR_METADATA_KEY)?.[0];
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw) as { code: ErrorCode; details?: Record<string, unknown> };
      return new AppError(parsed.code, svcErr.details ?? err.message, parsed.details ?? {}, { cause: err });
    } catch {
      // fall through to the status code
    }
  }
  const code = (svcErr.code !== undefined && fromGrpc.get(svcErr.code)) || ErrorCode.Internal;
  const message = code === ErrorCode.Internal ? 'internal error' : (svcErr.details ?? err.message);
  return new AppError(code, message, {}, { cause: err });
}
