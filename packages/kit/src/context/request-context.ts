import { randomUUID } from 'node:crypto';

/*
 * Who a piece of work is for (the request id that ties its log lines together across services)
 * and when its caller stops waiting are passed along explicitly: a gRPC call's CallSettings and
 * CallContext, HotPool's deadline option. They are never kept in async-local storage: on Node 20
 * an active async-local store puts a hook on every promise of its thread (docs/benchmarks.md).
 */

/** Milliseconds left before `deadline`; Infinity without one. */
export function msUntilDeadline(deadline: number | undefined): number {
  return deadline === undefined ? Infinity : deadline - Date.now();
}

export function newRequestId(): string {
  return randomUUID();
}

export const REQUEST_ID_HEADER = 'x-request-id';
