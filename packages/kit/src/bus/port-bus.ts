import type { MessagePort } from 'node:worker_threads';
import type { Logger } from '../logging';
import { decode, encode } from './policy';
import type { BusMessage, EventBus, PublishOptions, SubscribeOptions, Subscription } from './types';

/**
 * One event bus shared by threads: the bus lives in one thread (`serveBusOnPort`), every other
 * thread talks to it through a MessagePort (`connectPortBus`) with the same interface and the same
 * semantics: publishes are stored by the host bus, durable consumers keep their position there, a
 * delivery is acked when the handler in the worker resolves and redelivered when it throws (or when
 * the worker goes away before answering).
 */

type Request =
  /** `payload`: the data as the bus encodes it (JSON), so toJSON, Dates and class instances come out as on every bus. */
  | { op: 'publish'; id: number; subject: string; payload: string; opts: Omit<PublishOptions, 'onConsumed'>; consumed?: boolean }
  | { op: 'subscribe'; id: number; sub: number; opts: Omit<SubscribeOptions<unknown>, 'handler'> }
  | { op: 'watch'; id: number; sub: number; subjects: string | string[] }
  | { op: 'unsubscribe'; id: number; sub: number }
  | { op: 'close'; id: number }
  | { op: 'ack'; delivery: number; error?: string };

type Reply =
  | { op: 'reply'; id: number; error?: string }
  | { op: 'deliver'; sub: number; delivery: number; msg: BusMessage<unknown> }
  | { op: 'event'; sub: number; msg: BusMessage<unknown> }
  /** The message of publish `id` was consumed (PublishOptions.onConsumed). */
  | { op: 'consumed'; id: number };

/** Serves `bus` to the thread at the other end of `port`; resolves when that side closes (its subscriptions are stopped). */
export function serveBusOnPort(bus: EventBus, port: MessagePort): Promise<void> {
  const subs = new Map<number, Subscription>();
  const pending = new Map<number, { resolve(): void; reject(err: Error): void }>();
  let nextDelivery = 0;
  let open = true;
  const send = (m: Reply) => {
    if (open) port.postMessage(m);
  };
  const reply = (id: number, work: Promise<unknown>) =>
    work.then(
      () => send({ op: 'reply', id }),
      (err: unknown) => send({ op: 'reply', id, error: err instanceof Error ? err.message : String(err) }),
    );

  port.on('message', (m: Request) => {
    switch (m.op) {
      case 'publish':
        return void reply(m.id, bus.publish(m.subject, decode(m.payload), { ...m.opts, ...(m.consumed && { onConsumed: () => send({ op: 'consumed', id: m.id }) }) }));
      case 'subscribe':
        return void reply(
          m.id,
          bus
            .subscribe({
              ...m.opts,
              handler: (msg) =>
                new Promise<void>((resolve, reject) => {
                  if (!open) return reject(new Error('the subscribing thread is gone'));
                  const delivery = ++nextDelivery;
                  pending.set(delivery, { resolve, reject });
                  send({ op: 'deliver', sub: m.sub, delivery, msg });
                }),
            })
            .then((s) => void subs.set(m.sub, s)),
        );
      case 'watch':
        return void reply(
          m.id,
          bus.watch(m.subjects, (msg) => send({ op: 'event', sub: m.sub, msg })).then((s) => void subs.set(m.sub, s)),
        );
      case 'unsubscribe': {
        const s = subs.get(m.sub);
        subs.delete(m.sub);
        return void reply(m.id, s ? s.stop() : Promise.resolve());
      }
      case 'close':
        return void reply(m.id, stopAll());
      case 'ack': {
        const p = pending.get(m.delivery);
        pending.delete(m.delivery);
        if (m.error === undefined) p?.resolve();
        else p?.reject(new Error(m.error));
        return;
      }
    }
  });

  async function stopAll(): Promise<void> {
    const all = [...subs.values()];
    subs.clear();
    await Promise.all(all.map((s) => s.stop()));
  }

  return new Promise((resolve) => {
    port.once('close', () => {
      open = false;
      // Deliveries the other side never answered go back to the bus for redelivery.
      for (const p of pending.values()) p.reject(new Error('the subscribing thread is gone'));
      pending.clear();
      stopAll().then(resolve, resolve);
    });
  });
}

/** An EventBus in this thread whose messages live in the bus served at the other end of `port`. */
export function connectPortBus(port: MessagePort, options: { logger?: Logger } = {}): EventBus {
  let nextId = 0;
  let nextSub = 0;
  let closed = false;
  const calls = new Map<number, { resolve(): void; reject(err: Error): void }>();
  const handlers = new Map<number, (m: BusMessage<any>) => Promise<void> | void>();
  const watchers = new Set<number>();

  type Call = Extract<Request, { id: number }>;
  type WithoutId<R> = R extends Call ? Omit<R, 'id'> : never;
  const onConsumed = new Map<number, () => void>();
  const call = (req: WithoutId<Call>, consumed?: () => void) =>
    new Promise<void>((resolve, reject) => {
      const id = ++nextId;
      calls.set(id, { resolve, reject });
      if (consumed) onConsumed.set(id, consumed);
      port.postMessage({ ...req, id });
    });

  port.on('message', (m: Reply) => {
    if (m.op === 'reply') {
      const c = calls.get(m.id);
      calls.delete(m.id);
      if (m.error === undefined) c?.resolve();
      else {
        onConsumed.delete(m.id);
        c?.reject(new Error(m.error));
      }
    } else if (m.op === 'consumed') {
      const done = onConsumed.get(m.id);
      onConsumed.delete(m.id);
      done?.();
    } else if (m.op === 'deliver') {
      const handler = handlers.get(m.sub);
      const run = handler ? Promise.resolve().then(() => handler(m.msg)) : Promise.reject(new Error('not subscribed'));
      run.then(
        () => port.postMessage({ op: 'ack', delivery: m.delivery }),
        (err: unknown) => port.postMessage({ op: 'ack', delivery: m.delivery, error: err instanceof Error ? err.message : String(err) || 'handler failed' }),
      );
    } else if (m.op === 'event') {
      const handler = handlers.get(m.sub);
      if (!handler || !watchers.has(m.sub)) return;
      try {
        handler(m.msg);
      } catch (err) {
        options.logger?.error({ err, subject: m.msg.subject }, 'bus watch handler threw');
      }
    }
  });
  port.unref();

  const subscription = (sub: number): Subscription => ({
    async stop() {
      if (!handlers.has(sub)) return;
      watchers.delete(sub);
      if (!closed) await call({ op: 'unsubscribe', sub });
      handlers.delete(sub);
    },
  });

  return {
    async publish<T>(subject: string, data: T, opts: PublishOptions = {}): Promise<void> {
      if (closed) throw new Error('bus is closed');
      const { onConsumed: consumed, ...rest } = opts;
      await call({ op: 'publish', subject, payload: encode(data), opts: { ...rest, headers: { ...opts.headers } }, ...(consumed && { consumed: true }) }, consumed);
    },
    async subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription> {
      if (closed) throw new Error('bus is closed');
      const sub = ++nextSub;
      const { handler, ...rest } = opts;
      handlers.set(sub, handler as (m: BusMessage<any>) => Promise<void>);
      try {
        await call({ op: 'subscribe', sub, opts: rest });
      } catch (err) {
        handlers.delete(sub);
        throw err;
      }
      return subscription(sub);
    },
    async watch<T>(subjects: string | string[], handler: (m: BusMessage<T>) => void): Promise<Subscription> {
      if (closed) throw new Error('bus is closed');
      const sub = ++nextSub;
      handlers.set(sub, handler as (m: BusMessage<any>) => void);
      watchers.add(sub);
      try {
        await call({ op: 'watch', sub, subjects });
      } catch (err) {
        handlers.delete(sub);
        watchers.delete(sub);
        throw err;
      }
      return subscription(sub);
    },
    async close(): Promise<void> {
      if (closed) return;
      await call({ op: 'close' });
      closed = true;
      handlers.clear();
      watchers.clear();
    },
  };
}
