import type { Metadata, ServerUnaryCall, ServerWritableStream, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER, newRequestId, runWithRequestContext, type RequestContext } from '../context/request-context';
import { isAppError, ErrorCode } from '../errors/app-error';
import { toGrpcError } from './status-map';

interface MethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize: (b: Buffer) => unknown;
  responseSerialize: (v: never) => Buffer;
}
type ServiceDefinition = Record<string, MethodDefinition>;

export interface CallContext {
  requestId: string;
  /** The caller's deadline in ms since the epoch, when it set one. */
  deadline?: number;
  log: Logger;
  metadata: Metadata;
  /** Aborted when the client cancels or the deadline passes. */
  signal: AbortSignal;
}

type Req<M> = M extends { requestDeserialize: (b: Buffer) => infer Q } ? Q : never;
type Res<M> = M extends { responseSerialize: (v: infer R) => Buffer } ? R : never;

export type UnaryHandler<M> = (request: Req<M>, ctx: CallContext) => Promise<Res<M>>;
/** Server-streaming handler: write each message with `send`; resolve when done. */
export type StreamHandler<M> = (request: Req<M>, send: (message: Res<M>) => Promise<void>, ctx: CallContext) => Promise<void>;

export type Handlers<D> = {
  [K in keyof D]: D[K] extends { responseStream: true } ? StreamHandler<D[K]> : UnaryHandler<D[K]>;
};

type IncomingCall = { metadata: Metadata; cancelled: boolean; on(event: 'cancelled', l: () => void): unknown; getDeadline(): Date | number };

function deadlineOf(call: IncomingCall): number | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms : undefined;
}

function contextFor(call: IncomingCall, log: Logger, method: string): CallContext {
  const incoming = call.metadata.get(REQUEST_ID_HEADER)[0];
  const requestId = typeof incoming === 'string' && incoming ? incoming : newRequestId();
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort(new Error('cancelled by client')));
  let callLog: Logger | undefined;
  return {
    requestId,
    deadline: deadlineOf(call),
    // Most calls never log: the child logger (its bindings serialised) is made on first use.
    get log() {
      return (callLog ??= log.child({ requestId, rpc: method }));
    },
    metadata: call.metadata,
    signal: controller.signal,
  };
}

function logFailure(ctx: CallContext, err: unknown): void {
  if (isAppError(err) && err.code !== ErrorCode.Internal) ctx.log.debug({ code: err.code, msg: err.message }, 'rpc rejected');
  else ctx.log.error({ err }, 'rpc failed');
}

/**
 * Adapts typed async handlers to grpc-js: request id from metadata into the async context and
 * the logger, domain errors to gRPC statuses (the one place that mapping happens on a server).
 */
export function implement<D extends ServiceDefinition>(definition: D, handlers: Handlers<D>, log: Logger): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler = (handlers as Record<string, unknown>)[name];
    if (typeof handler !== 'function') throw new Error(`no handler for ${method.path}`);
    if (method.requestStream) throw new Error(`client streaming is not supported: ${method.path}`);
    impl[name] = method.responseStream ? streamAdapter(handler as StreamHandler<MethodDefinition>, log, method.path) : unaryAdapter(handler as UnaryHandler<MethodDefinition>, log, method.path);
  }
  return impl;
}

function unaryAdapter(handler: UnaryHandler<MethodDefinition>, log: Logger, path: string) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    const ctx = contextFor(call, log, path);
    const store: RequestContext = { requestId: ctx.requestId, deadline: ctx.deadline };
    runWithRequestContext(store, () => handler(call.request as never, ctx)).finally(() => (store.ended = true)).then(
      (response) => callback(null, response),
      (err: unknown) => {
        logFailure(ctx, err);
        callback(toGrpcError(err) as never);
      },
    );
  };
}

function streamAdapter(handler: StreamHandler<MethodDefinition>, log: Logger, path: string) {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const ctx = contextFor(call, log, path);
    const send = (message: unknown) =>
      new Promise<void>((resolve) => {
        if (call.cancelled || call.destroyed) return resolve();
        if (call.write(message)) resolve();
        else call.once('drain', () => resolve());
      });
    const store: RequestContext = { requestId: ctx.requestId, deadline: ctx.deadline };
    runWithRequestContext(store, () => handler(call.request as never, send as never, ctx)).finally(() => (store.ended = true)).then(
      () => call.end(),
      (err: unknown) => {
        if (call.cancelled) return;
        logFailure(ctx, err);
        // 'error' (not destroy) makes grpc-js end the call with this status; a destroyed stream never sends one.
        call.emit('error', Object.assign(new Error(toGrpcError(err).details), toGrpcError(err)));
      },
    );
  };
}
