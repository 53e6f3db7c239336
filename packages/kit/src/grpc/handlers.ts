import type { Metadata, ServerUnaryCall, ServerWritableStream, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER, newRequestId } from '../context/request-context';
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

/**
 * The handler's context; `answered()` is called once the call's outcome is sent. grpc-js reports
 * every finished call as cancelled too, so only a cancellation before the answer (the caller went
 * away, or its deadline passed) aborts the signal. The controller is made when a handler asks for it.
 */
function contextFor(call: IncomingCall, log: Logger, method: string): { ctx: CallContext; answered(): void } {
  const incoming = call.metadata.get(REQUEST_ID_HEADER)[0];
  const requestId = typeof incoming === 'string' && incoming ? incoming : newRequestId();
  let controller: AbortController | undefined;
  let gone = false;
  let done = false;
  call.on('cancelled', () => {
    if (done) return;
    gone = true;
    controller?.abort(new Error('cancelled by client'));
  });
  let callLog: Logger | undefined;
  const ctx: CallContext = {
    requestId,
    deadline: deadlineOf(call),
    // Most calls never log: the child logger (its bindings serialised) is made on first use.
    get log() {
      return (callLog ??= log.child({ requestId, rpc: method }));
    },
    metadata: call.metadata,
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (gone) controller.abort(new Error('cancelled by client'));
      }
      return controller.signal;
    },
  };
  return { ctx, answered: () => void (done = true) };
}

/** A handler that throws before its first await fails its call like one that rejects. */
function started<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (err) {
    return Promise.reject(err);
  }
}

function logFailure(ctx: CallContext, err: unknown): void {
  if (isAppError(err) && err.code !== ErrorCode.Internal) ctx.log.debug({ code: err.code, msg: err.message }, 'rpc rejected');
  else ctx.log.error({ err }, 'rpc failed');
}

/**
 * Adapts typed async handlers to grpc-js: the request id from metadata and the deadline into the
 * handler's CallContext and its logger, domain errors to gRPC statuses (the one place that mapping
 * happens on a server).
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
    const { ctx, answered } = contextFor(call, log, path);
    started(() => handler(call.request as never, ctx)).then(
      (response) => {
        answered();
        callback(null, response);
      },
      (err: unknown) => {
        answered();
        logFailure(ctx, err);
        callback(toGrpcError(err) as never);
      },
    );
  };
}

/** What lets a server stream's writer go on: room again, or the end of the call. */
const ENDING_EVENTS = ['drain', 'cancelled', 'close', 'error'] as const;

function streamAdapter(handler: StreamHandler<MethodDefinition>, log: Logger, path: string) {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const { ctx, answered } = contextFor(call, log, path);
    const send = (message: unknown) =>
      new Promise<void>((resolve) => {
        if (call.cancelled || call.destroyed) return resolve();
        if (call.write(message)) return resolve();
        // Full: wait for the client to read, or for the call to end (a cancelled call never drains).
        const go = () => {
          for (const event of ENDING_EVENTS) call.off(event, go);
          resolve();
        };
        for (const event of ENDING_EVENTS) call.on(event, go);
      });
    started(() => handler(call.request as never, send as never, ctx)).then(
      () => {
        answered();
        call.end();
      },
      (err: unknown) => {
        answered();
        if (call.cancelled) return;
        logFailure(ctx, err);
        // 'error' (not destroy) makes grpc-js end the call with this status; a destroyed stream never sends one.
        call.emit('error', Object.assign(new Error(toGrpcError(err).details), toGrpcError(err)));
      },
    );
  };
}
