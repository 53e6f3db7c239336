import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (ms since the epoch): the incoming gRPC call's deadline, if it has one. */
  deadline?: number;
  /**
   * Set once the call was answered. Work started during the call and still running after it (a
   * coalescing loop, a timer) inherits this context; from then on the deadline no longer binds it.
   */
  ended?: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context; gRPC clients and bus publishers read it. */
export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** Runs `fn` outside any request context: work shared by many calls must not inherit one call's deadline or id. */
export function outsideRequestContext<T>(fn: () => T): T {
  return storage.exit(fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Milliseconds left before the current call's deadline; Infinity outside a call with a deadline. */
export function msUntilDeadline(): number {
  const deadline = currentDeadline();
  return deadline === undefined ? Infinity : deadline - Date.now();
}

/** The deadline of the call being served, if it has one and has not been answered yet. */
export function currentDeadline(): number | undefined {
  const store = storage.getStore();
  return store && !store.ended ? store.deadline : undefined;
}

export function newRequestId(): string {
  return randomUUID();
}

export const REQUEST_ID_HEADER = 'x-request-id';
