import { AsyncResource } from 'node:async_hooks';

type Bind = <F extends (...args: never[]) => unknown>(fn: F, thisArg?: unknown) => F;

/**
 * Node 20's `AsyncResource#bind` gives every function it binds a deprecated `asyncResource`
 * getter and setter, each made by `util.deprecate`, which also sets the new function's prototype:
 * a fresh hidden class twice per call (nodejs/node#58218). `node:http2` binds one function per
 * client request, so each gRPC call paid for it in CPU and in garbage. Node 24.6 stopped setting
 * the prototypes and Node 25 dropped the property (DEP0172, End-of-Life); this gives an older Node
 * that same `bind`: the same function, run in the resource's async scope, with the same `length`.
 */
function bindWithoutDeprecatedProperty(this: AsyncResource, fn: (...args: unknown[]) => unknown, thisArg?: unknown) {
  if (typeof fn !== 'function') throw Object.assign(new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`), { code: 'ERR_INVALID_ARG_TYPE' });
  let bound: (...args: unknown[]) => unknown;
  if (thisArg === undefined) {
    const resource = this;
    bound = function (this: unknown, ...args: unknown[]) {
      return resource.runInAsyncScope(fn, this, ...args);
    };
  } else {
    bound = this.runInAsyncScope.bind(this, fn, thisArg) as (...args: unknown[]) => unknown;
  }
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound;
}

let checked = false;

/**
 * Replaces `AsyncResource.prototype.bind` with bindWithoutDeprecatedProperty where Node still
 * defines the deprecated property (once per thread: each has its own `AsyncResource`). Returns
 * whether it was replaced.
 */
export function fixAsyncResourceBind(): boolean {
  if (checked) return false;
  checked = true;
  const probe = new AsyncResource('TollgateBindProbe').bind(() => undefined);
  if (!Object.prototype.hasOwnProperty.call(probe, 'asyncResource')) return false;
  AsyncResource.prototype.bind = bindWithoutDeprecatedProperty as unknown as Bind;
  return true;
}
