import { credentials, InterceptingCall, ListenerBuilder, Metadata, RequesterBuilder, type CallOptions, type Client, type ClientReadableStream, type ClientUnaryCall, type Interceptor, type ServiceError } from '@grpc/grpc-js';
import { REQUEST_ID_HEADER } from '../context/request-context';
import { fromGrpcError } from './status-map';
import { fixAsyncResourceBind } from './async-resource-bind';

export interface CallSettings {
  /** Deadline for this call; every call has one. */
  timeoutMs?: number;
  /** The request this call serves, for the callee's log lines. */
  requestId?: string;
  /** The deadline of the call being served (ms since the epoch): this call never outlives it. */
  deadline?: number;
  signal?: AbortSignal;
}

type UnaryFn = (req: never, md: Metadata, opts: Partial<CallOptions>, cb: (e: ServiceError | null, res: never) => void) => ClientUnaryCall;

type Promisified<C> = {
  // Streaming first: a streaming method is also assignable to the unary shape.
  [K in keyof C as C[K] extends (...args: never[]) => unknown ? K : never]: C[K] extends (req: infer Q, md?: Metadata, opts?: Partial<CallOptions>) => ClientReadableStream<infer R>
    ? (request: Q, settings?: CallSettings) => ClientReadableStream<R>
    : C[K] extends (req: infer Q, md: Metadata, opts: Partial<CallOptions>, cb: (e: ServiceError | null, res: infer R) => void) => ClientUnaryCall
      ? (request: Q, settings?: CallSettings) => Promise<R>
      : never;
};

export type GrpcClient<C> = Promisified<Omit<C, keyof Client>> & { readonly raw: C; close(): void };

type ClientCtor<C> = { new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object): C; service: Record<string, { responseStream: boolean }> };

export const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Runs `fn` with stack capture off. grpc-js captures the caller's stack on every call, and on every
 * failed one formats it and two more (through source maps, when they are on: a tenth of the CPU of
 * a 404); the error a call rejects with is the callee's AppError, which carries no local stack.
 */
function withoutStacks<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Delivers a call's final status (where grpc-js makes its error objects) with stack capture off. */
const statusListener = new ListenerBuilder().withOnReceiveStatus((status, deliver) => withoutStacks(() => deliver(status))).build();
const statusRequester = new RequesterBuilder().withStart((metadata, _listener, next) => next(metadata, statusListener)).build();
const statusWithoutStacks: Interceptor = (options, nextCall) => new InterceptingCall(nextCall(options), statusRequester);

function metadataFor(settings: CallSettings | undefined): Metadata {
  const md = new Metadata();
  if (settings?.requestId) md.set(REQUEST_ID_HEADER, settings.requestId);
  return md;
}

/** A call made while serving another never outlives the caller's deadline. */
function deadlineFor(timeoutMs: number, inherited: number | undefined): number {
  const own = Date.now() + timeoutMs;
  return inherited === undefined ? own : Math.min(own, inherited);
}

/**
 * A promise-returning client: every unary call gets a deadline (never later than the served
 * call's, when given) and the request id it is given;
 * gRPC errors come back as the AppError the server threw.
 */
export function createGrpcClient<C extends Client>(Ctor: ClientCtor<C>, address: string, defaults: { timeoutMs?: number } = {}): GrpcClient<C> {
  fixAsyncResourceBind();
  const raw = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    // A restarted service is called again within about a second of its return: the backoff between
    // reconnect attempts grows from 250 ms to at most 1 s (grpc-js: 1 s to 120 s), and every call
    // while it waits fails at once with UNAVAILABLE.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 1_000,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.enable_channelz': 0,
    interceptors: [statusWithoutStacks],
  });
  const wrapped: Record<string, unknown> = {
    raw,
    close: () => raw.close(),
  };
  for (const [name, method] of Object.entries(Ctor.service)) {
    const fn = (raw as unknown as Record<string, Function>)[name].bind(raw);
    if (method.responseStream) {
      wrapped[name] = (request: unknown, settings?: CallSettings) => {
        const options: Partial<CallOptions> = settings?.timeoutMs ? { deadline: Date.now() + settings.timeoutMs } : {};
        const stream = withoutStacks(() => fn(request, metadataFor(settings), options)) as ClientReadableStream<unknown>;
        settings?.signal?.addEventListener('abort', () => stream.cancel(), { once: true });
        return stream;
      };
      continue;
    }
    wrapped[name] = (request: unknown, settings?: CallSettings) =>
      new Promise((resolve, reject) => {
        const deadline = deadlineFor(settings?.timeoutMs ?? defaults.timeoutMs ?? DEFAULT_DEADLINE_MS, settings?.deadline);
        const call = withoutStacks(() => (fn as UnaryFn)(request as never, metadataFor(settings), { deadline }, (err, res) => (err ? reject(fromGrpcError(err)) : resolve(res))));
        settings?.signal?.addEventListener('abort', () => call.cancel(), { once: true });
      });
  }
  return wrapped as GrpcClient<C>;
}
