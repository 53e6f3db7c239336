import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { fixAsyncResourceBind } from '../src/grpc/async-resource-bind';

describe("AsyncResource#bind without Node 20's deprecated property", () => {
  const hadProperty = Object.prototype.hasOwnProperty.call(new AsyncResource('probe').bind(() => undefined), 'asyncResource');
  const replaced = fixAsyncResourceBind();

  it('is replaced exactly where Node still defines the deprecated property, and only once', () => {
    expect(replaced).toBe(hadProperty);
    expect(fixAsyncResourceBind()).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(new AsyncResource('after').bind(() => undefined), 'asyncResource')).toBe(false);
  });

  it("runs the function in the resource's async context, with its arguments, result and length", () => {
    const als = new AsyncLocalStorage<string>();
    const resource = als.run('where the resource was made', () => new AsyncResource('test'));
    const bound = resource.bind((a: number, b: number) => `${als.getStore()}: ${a + b}`);
    expect(bound.length).toBe(2);
    expect(als.run('elsewhere', () => bound(2, 3))).toBe('where the resource was made: 5');
    const staticBound = als.run('static', () => AsyncResource.bind(() => als.getStore()));
    expect(staticBound()).toBe('static');
  });

  it('passes the caller\'s this when no thisArg is given, and binds thisArg when it is', () => {
    const resource = new AsyncResource('this');
    const readThis = function (this: { name?: string } | undefined) {
      return this?.name;
    };
    const bind = resource.bind.bind(resource) as (fn: typeof readThis, thisArg?: unknown) => () => string | undefined;
    const holder = { name: 'caller', read: bind(readThis) };
    expect(holder.read()).toBe('caller');
    expect(bind(readThis, { name: 'bound' })()).toBe('bound');
  });

  it('refuses what is not a function, as Node does', () => {
    expect(() => new AsyncResource('bad').bind('nope' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });
});
