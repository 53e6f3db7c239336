import type { Logger } from '../logging';
import { DEFAULT_MAX_DELIVER, DEFAULT_STREAMS, DUPLICATE_WINDOW_MS, consumerName, decode, encode, retryDelayMs, streamFor } from './policy';
import { isValidFilter, isValidSubject, subjectMatches, toList } from './subject';
import type { BusMessage, EventBus, PublishOptions, StreamSpec, SubscribeOptions, Subscription } from './types';

export interface MemoryBusOptions {
  streams?: readonly StreamSpec[];
  /**
   * Messages kept per stream once every durable consumer has passed them (the history a new durable
   * starts from); default 10,000. A message some durable has not yet taken is never dropped for
   * this limit, only for its stream's age limit, as JetStream does.
   */
  maxMessagesPerStream?: number;
  /**
   * Messages a stream holds for its slowest durable consumer before a publish is refused (the
   * publisher keeps what it had: the outboxes retry); default 100,000.
   */
  maxPendingPerStream?: number;
  logger?: Logger;
}

interface Stored {
  seq: number;
  subject: string;
  payload: string;
  headers: Record<string, string>;
  at: number;
  /** Durable consumers that have not yet acknowledged it (or given it up), and who waits for that. */
  unacked?: number;
  onConsumed?: () => void;
}

/** One durable consumer is done with `msg` (acknowledged, or dropped after maxDeliver). */
/** Calls `done` once `msg` is safe: when its durable consumers are done with it, or at once if nobody waits for that (or it is gone). */
function whenConsumed(msg: Stored | undefined, done: () => void): void {
  const waiting = msg?.onConsumed;
  if (!msg || !waiting) return queueMicrotask(done);
  msg.onConsumed = () => {
    waiting();
    done();
  };
}

function consumedBy(msg: Stored): void {
  if (msg.unacked === undefined || --msg.unacked > 0) return;
  const done = msg.onConsumed;
  msg.onConsumed = undefined;
  done?.();
}

interface Delivery {
  msg: Stored;
  count: number;
  readyAt: number;
}

/**
 * One stream's retained messages, oldest first: an array read from `head`, so dropping the oldest
 * is O(1) (the dead prefix is cut off only when it is as long as the live part: amortised O(1)).
 */
class Log {
  private items: Stored[] = [];
  private head = 0;
  /** Message ids within the duplicate window: when first published, and as which sequence. */
  readonly msgIds = new Map<string, { at: number; seq: number }>();
  lastSeq = 0;
  constructor(readonly spec: StreamSpec) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get firstSeq(): number {
    return this.head < this.items.length ? this.items[this.head].seq : this.lastSeq + 1;
  }

  /** The message with stream sequence `seq`, if still retained (sequences are dense). */
  at(seq: number): Stored | undefined {
    const first = this.firstSeq;
    return seq >= first && seq <= this.lastSeq ? this.items[this.head + (seq - first)] : undefined;
  }

  push(msg: Stored): void {
    this.items.push(msg);
  }

  /** Drops messages past the age limit, and the oldest beyond `maxMessages` that no durable needs (sequence below `neededFrom`). */
  trim(now: number, maxMessages: number, neededFrom: number): void {
    while (this.head < this.items.length && (now - this.items[this.head].at > this.spec.maxAgeMs || (this.items.length - this.head > maxMessages && this.items[this.head].seq < neededFrom))) {
      this.items[this.head++] = undefined as unknown as Stored;
    }
    if (this.head > 1_024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    for (const [id, { at }] of this.msgIds) {
      if (now - at <= DUPLICATE_WINDOW_MS) break;
      this.msgIds.delete(id);
    }
  }
}

class Consumer {
  next: number;
  maxDeliver = DEFAULT_MAX_DELIVER;
  private readonly retries: Delivery[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly log: Log, readonly filter: string, deliverNew: boolean) {
    this.next = deliverNew ? log.lastSeq + 1 : log.firstSeq;
  }

  take(now: number): Delivery | undefined {
    let i = -1;
    for (let j = 0; j < this.retries.length; j++) {
      const d = this.retries[j];
      if (d.readyAt <= now && (i < 0 || d.msg.seq < this.retries[i].msg.seq)) i = j;
    }
    if (i >= 0) {
      const ready = this.retries[i];
      this.retries[i] = this.retries[this.retries.length - 1];
      this.retries.pop();
      ready.count++;
      return ready;
    }
    this.next = Math.max(this.next, this.log.firstSeq);
    for (; this.next <= this.log.lastSeq; this.next++) {
      const msg = this.log.at(this.next)!;
      if (subjectMatches(this.filter, msg.subject)) {
        this.next++;
        return { msg, count: 1, readyAt: 0 };
      }
    }
    this.wakeAtEarliestRetry(now);
    return undefined;
  }

  /** A timer may fire a little before Date.now() reaches a retry's readyAt: wake again when it is due. */
  private wakeAtEarliestRetry(now: number): void {
    if (this.retries.length === 0) return;
    let earliest = Infinity;
    for (const d of this.retries) earliest = Math.min(earliest, d.readyAt);
    setTimeout(() => this.wake(), Math.max(1, earliest - now + 1)).unref();
  }

  retryLater(d: Delivery, delayMs: number): void {
    d.readyAt = Date.now() + delayMs;
    this.retries.push(d);
    setTimeout(() => this.wake(), delayMs).unref();
  }

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

interface Watcher {
  filters: string[];
  handler: (m: BusMessage<any>) => void;
}

export function createMemoryBus(options: MemoryBusOptions = {}): EventBus {
  const streams = options.streams ?? DEFAULT_STREAMS;
  const maxMessages = options.maxMessagesPerStream ?? 10_000;
  const maxPending = options.maxPendingPerStream ?? 100_000;
  const logs = new Map(streams.map((s) => [s.name, new Log(s)]));
  const consumers = new Map<string, Consumer>();
  const watchers = new Set<Watcher>();
  const subscriptions = new Set<Subscription>();
  let closed = false;

  function logFor(filter: string): Log {
    const spec = streamFor(streams, filter);
    if (!spec) throw new Error(`no stream holds subject "${filter}"`);
    return logs.get(spec.name)!;
  }

  /** The first sequence some durable consumer of `log` has not taken yet (past the end when none lags). */
  function neededFrom(log: Log): number {
    let first = log.lastSeq + 1;
    for (const c of consumers.values()) if (c.log === log && c.next < first) first = c.next;
    return first;
  }

  function toMessage<T>(msg: Stored, seq: number, redelivered: boolean): BusMessage<T> {
    return { subject: msg.subject, data: decode<T>(msg.payload), headers: { ...msg.headers }, seq, redelivered };
  }

  async function deliver<T>(consumer: Consumer, d: Delivery, handler: (m: BusMessage<T>) => Promise<void>): Promise<void> {
    const m = toMessage<T>(d.msg, d.msg.seq, d.count > 1);
    try {
      await handler(m);
      consumedBy(d.msg);
    } catch (err) {
      if (d.count >= consumer.maxDeliver) {
        options.logger?.error({ err, subject: m.subject, seq: m.seq, deliveries: d.count }, 'bus handler failed; message dropped after max deliveries');
        consumedBy(d.msg);
      } else {
        options.logger?.warn({ err, subject: m.subject, seq: m.seq, deliveries: d.count }, 'bus handler failed; will redeliver');
        consumer.retryLater(d, retryDelayMs(d.count));
      }
    }
  }

  async function work<T>(consumer: Consumer, state: { active: boolean }, handler: (m: BusMessage<T>) => Promise<void>): Promise<void> {
    while (state.active) {
      const d = consumer.take(Date.now());
      if (d) await deliver(consumer, d, handler);
      else await consumer.wait();
    }
  }

  return {
    async publish<T>(subject: string, data: T, opts: PublishOptions = {}): Promise<void> {
      if (closed) throw new Error('bus is closed');
      if (!isValidSubject(subject)) throw new Error(`invalid subject "${subject}"`);
      const log = logFor(subject);
      const now = Date.now();
      const needed = neededFrom(log);
      log.trim(now, maxMessages, needed);
      if (log.lastSeq + 1 - Math.max(needed, log.firstSeq) >= maxPending) {
        throw new Error(`stream ${log.spec.name} is full: ${maxPending} messages wait for a durable consumer; publish again later`);
      }
      if (opts.msgId !== undefined) {
        const earlier = log.msgIds.get(opts.msgId);
        if (earlier) {
          if (opts.onConsumed) whenConsumed(log.at(earlier.seq), opts.onConsumed);
          return;
        }
        log.msgIds.set(opts.msgId, { at: now, seq: log.lastSeq + 1 });
      }
      const msg: Stored = { seq: ++log.lastSeq, subject, payload: encode(data), headers: { ...opts.headers }, at: now };
      if (opts.onConsumed) {
        let holders = 0;
        for (const c of consumers.values()) if (c.log === log && subjectMatches(c.filter, subject)) holders++;
        if (holders === 0) queueMicrotask(opts.onConsumed);
        else Object.assign(msg, { unacked: holders, onConsumed: opts.onConsumed });
      }
      log.push(msg);
      log.trim(now, maxMessages, needed);
      for (const c of consumers.values()) if (c.log === log) c.wake();
      for (const w of watchers) {
        if (!w.filters.some((f) => subjectMatches(f, subject))) continue;
        setImmediate(() => {
          const m = toMessage(msg, 0, false);
          try {
            w.handler(m);
          } catch (err) {
            options.logger?.error({ err, subject }, 'bus watch handler threw');
          }
        });
      }
    },

    async subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription> {
      if (closed) throw new Error('bus is closed');
      const filters = toList(opts.subjects);
      for (const f of filters) if (!isValidFilter(f)) throw new Error(`invalid subject filter "${f}"`);
      const state = { active: true };
      const mine = filters.map((filter) => {
        const key = consumerName(opts.durable, filter);
        let consumer = consumers.get(key);
        if (!consumer) consumers.set(key, (consumer = new Consumer(logFor(filter), filter, opts.deliverNew ?? false)));
        consumer.maxDeliver = opts.maxDeliver ?? DEFAULT_MAX_DELIVER;
        return consumer;
      });
      const workers = mine.map((c) => work(c, state, opts.handler));
      const sub: Subscription = {
        async stop() {
          state.active = false;
          for (const c of mine) c.wake();
          await Promise.all(workers);
          subscriptions.delete(sub);
        },
      };
      subscriptions.add(sub);
      return sub;
    },

    async watch<T>(subjects: string | string[], handler: (m: BusMessage<T>) => void): Promise<Subscription> {
      const filters = toList(subjects);
      for (const f of filters) if (!isValidFilter(f)) throw new Error(`invalid subject filter "${f}"`);
      const w: Watcher = { filters, handler };
      watchers.add(w);
      return { stop: async () => void watchers.delete(w) };
    },

    async close(): Promise<void> {
      closed = true;
      watchers.clear();
      await Promise.all([...subscriptions].map((s) => s.stop()));
    },
  };
}
