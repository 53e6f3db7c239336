import { status as GrpcStatus, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Server-side gRPC metrics of one service instance: calls by method and status code, and latency. */
export interface GrpcMetrics {
  handled: Counter<'method' | 'code'>;
  seconds: Histogram<'method'>;
}

export function createGrpcMetrics(registry: Registry): GrpcMetrics {
  return {
    handled: new Counter({
      name: 'grpc_server_handled_total',
      help: 'gRPC calls completed on the server, by full method name and status code',
      labelNames: ['method', 'code'],
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'grpc_server_handling_seconds',
      help: 'Time from a gRPC call arriving to its status being sent, by full method name',
      labelNames: ['method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}

type MethodInfo = { path: string; responseStream: boolean };
type AnyFn = (...args: any[]) => unknown;

const codeName = (code: unknown): string => (typeof code === 'number' && GrpcStatus[code] ? GrpcStatus[code] : 'UNKNOWN');

/**
 * Wraps every method of a service implementation so that its completion is counted and timed.
 * Unary calls are observed through their callback; server-streaming calls through end/destroy.
 */
export function instrumentImplementation(definition: object, implementation: UntypedServiceImplementation, metrics: GrpcMetrics): UntypedServiceImplementation {
  const methods = definition as Record<string, MethodInfo>;
  const wrapped: UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(implementation)) {
    const info = methods[name];
    if (!info || typeof fn !== 'function') {
      wrapped[name] = fn;
      continue;
    }
    const observe = observer(info.path, metrics);
    wrapped[name] = (info.responseStream ? streamWrapper(fn as AnyFn, observe) : unaryWrapper(fn as AnyFn, observe)) as never;
  }
  return wrapped;
}

function observer(method: string, metrics: GrpcMetrics) {
  return () => {
    const stopTimer = metrics.seconds.startTimer({ method });
    let done = false;
    return (code: unknown) => {
      if (done) return;
      done = true;
      stopTimer();
      metrics.handled.inc({ method, code: codeName(code) });
    };
  };
}

function unaryWrapper(fn: AnyFn, observe: ReturnType<typeof observer>) {
  return (call: unknown, callback: AnyFn) => {
    const finish = observe();
    return fn(call, (err: { code?: number } | null, ...rest: unknown[]) => {
      finish(err ? (err.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK);
      return callback(err, ...rest);
    });
  };
}

function streamWrapper(fn: AnyFn, observe: ReturnType<typeof observer>) {
  return (call: { end: AnyFn; destroy: AnyFn; on(event: string, l: () => void): unknown }) => {
    const finish = observe();
    const end = call.end.bind(call);
    const destroy = call.destroy.bind(call);
    call.end = (...args: unknown[]) => {
      finish(GrpcStatus.OK);
      return end(...args);
    };
    call.destroy = (err?: { code?: number }) => {
      finish(err ? (err.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK);
      return destroy(err);
    };
    call.on('cancelled', () => finish(GrpcStatus.CANCELLED));
    return fn(call);
  };
}
