import type { ClientReadableStream } from '@grpc/grpc-js';
import { fromGrpcError } from '@tollgate/kit';

/**
 * Reads a server-streaming gRPC call as an async iterator of its messages; a failed call throws
 * the AppError the server threw. Stops the call when the consumer stops early.
 */
export async function* grpcMessages<T>(call: ClientReadableStream<T>): AsyncGenerator<T> {
  try {
    for await (const message of call as AsyncIterable<T>) yield message;
  } catch (err) {
    throw fromGrpcError(err as Error);
  } finally {
    call.cancel();
  }
}
