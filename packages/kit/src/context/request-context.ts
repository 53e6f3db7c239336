import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (ms since the epoch): the incoming gRPC call's deadline, if it has one. */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context; gRPC clients and bus publishers read it. */
export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Milliseconds left before the current call's deadline; Infinity outside a call with a deadline. */
export function msUntilDeadline(): number {
  const deadline = storage.getStore()?.deadline;
  return deadline === undefined ? Infinity : deadline - Date.now();
}

export function newRequestId(): string {
  return randomUUID();
}

export const REQUEST_ID_HEADER = 'x-request-id';
