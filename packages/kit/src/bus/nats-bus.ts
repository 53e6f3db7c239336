import { AckPolicy, DeliverPolicy, JetStreamApiError, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../logging';
import { connect, createHeaders, nanos, type MsgHdrs, type NatsConnection } from './nats-client';
import { DEFAULT_ACK_WAIT_MS, DEFAULT_MAX_DELIVER, DEFAULT_STREAMS, DUPLICATE_WINDOW_MS, consumerName, decode, encode, retryDelayMs, streamFor } from './policy';
import { isValidFilter, isValidSubject, toList } from './subject';
import type { BusMessage, EventBus, PublishOptions, StreamSpec, SubscribeOptions, Subscription } from './types';

export interface NatsBusOptions {
  url: string;
  /** Connection name, shown by the server's monitoring. */
  name: string;
  /** One token (letters, digits, `_`, `-`) put before every subject (`p.tasks.>`) and stream name (`p_TASKS`); isolates test runs. */
  prefix?: string;
  streams?: readonly StreamSpec[];
  logger?: Logger;
}

export interface NatsBus extends EventBus {
  readonly connection: NatsConnection;
}

const CONSUMER_NOT_FOUND = 10014;
const STREAM_NOT_FOUND = 10059;
/** Messages waiting in the client buffer age toward ack_wait without progress heartbeats, so keep the buffer minimal. */
const PULL_BATCH = 1;
/** Also sets the idle heartbeat (half of it); a vanished consumer is noticed after two missed heartbeats. */
const PULL_EXPIRES_MS = 5_000;

export async function connectNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  const prefix = options.prefix ?? '';
  if (prefix && !/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`invalid bus prefix "${prefix}"`);
  const log = options.logger;
  const streams = (options.streams ?? DEFAULT_STREAMS).map((s) => ({
    ...s,
    name: prefix ? `${prefix}_${s.name}` : s.name,
    subjects: s.subjects.map((x) => (prefix ? `${prefix}.${x}` : x)),
  }));
  const full = (subject: string) => (prefix ? `${prefix}.${subject}` : subject);
  const strip = (subject: string) => (prefix ? subject.slice(prefix.length + 1) : subject);

  const nc = await connect({ servers: options.url, name: options.name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000 });
  const ensureStreams = async () => {
    const jsm = await jetstreamManager(nc);
    for (const s of streams) await ensureStream(jsm, s, log);
  };
  void watchConnection(nc, log, () => ensureStreams().catch((err) => log?.error({ err }, 'bus streams not ensured after reconnect')));
  try {
    await ensureStreams();
  } catch (err) {
    await nc.close();
    throw err;
  }
  const js = jetstream(nc);
  const subscriptions = new Set<Subscription>();

  function streamOf(filter: string): string {
    const s = streamFor(streams, filter);
    if (!s) throw new Error(`no stream holds subject "${strip(filter)}"`);
    return s.name;
  }

  function toMessage<T>(subject: string, data: Uint8Array, hdrs: MsgHdrs | undefined, seq: number, redelivered: boolean): BusMessage<T> {
    return { subject: strip(subject), data: decode<T>(new TextDecoder().decode(data)), headers: fromHeaders(hdrs), seq, redelivered };
  }

  async function handle<T>(m: JsMsg, handler: (m: BusMessage<T>) => Promise<void>, ackWaitMs: number, maxDeliver: number): Promise<void> {
    const deliveries = m.info.deliveryCount;
    let msg: BusMessage<T>;
    try {
      msg = toMessage<T>(m.subject, m.data, m.headers, m.seq, m.redelivered);
    } catch (err) {
      log?.error({ err, subject: m.subject, seq: m.seq }, 'bus message undecodable; dropped');
      m.term();
      return;
    }
    const progress = setInterval(() => (nc.isClosed() ? clearInterval(progress) : m.working()), Math.max(ackWaitMs / 3, 100));
    try {
      await handler(msg);
      if (!nc.isClosed()) await m.ackAck().catch((err) => log?.warn({ err, subject: msg.subject, seq: msg.seq }, 'bus ack not confirmed'));
    } catch (err) {
      if (nc.isClosed()) return;
      if (deliveries >= maxDeliver) {
        log?.error({ err, subject: msg.subject, seq: msg.seq, deliveries }, 'bus handler failed; message dropped after max deliveries');
        m.term();
      } else {
        log?.warn({ err, subject: msg.subject, seq: msg.seq, deliveries }, 'bus handler failed; will redeliver');
        m.nak(retryDelayMs(deliveries));
      }
    } finally {
      clearInterval(progress);
    }
  }

  async function consumeOne<T>(filter: string, opts: SubscribeOptions<T>, jsm: JetStreamManager) {
    const stream = streamOf(filter);
    const name = consumerName(opts.durable, strip(filter));
    const ackWaitMs = opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const maxDeliver = opts.maxDeliver ?? DEFAULT_MAX_DELIVER;
    const config = {
      durable_name: name,
      filter_subject: filter,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: opts.deliverNew ? DeliverPolicy.New : DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      max_deliver: maxDeliver,
    };
    await ensureConsumer(jsm, stream, config);
    const open = async (): Promise<ConsumerMessages> => {
      const messages = await (await js.consumers.get(stream, name)).consume({ max_messages: PULL_BATCH, expires: PULL_EXPIRES_MS });
      void (async () => {
        for await (const s of messages.status()) if (s.type === 'consumer_not_found' || s.type === 'consumer_deleted') messages.stop();
      })();
      return messages;
    };
    const state = { stopping: false, messages: await open() };
    const reopen = async (): Promise<boolean> => {
      log?.warn({ stream, consumer: name }, 'bus consumer lost; recreating it');
      while (!state.stopping && !nc.isClosed()) {
        try {
          await ensureConsumer(jsm, stream, config);
          state.messages = await open();
          return true;
        } catch (err) {
          log?.error({ err, stream, consumer: name }, 'bus consumer not recreated; retrying');
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      return false;
    };
    void nc.closed().then(() => state.messages.stop());
    const loop = (async () => {
      do {
        try {
          for await (const m of state.messages) {
            if (state.stopping) m.nak();
            else await handle(m, opts.handler, ackWaitMs, maxDeliver);
          }
        } catch (err) {
          log?.warn({ err, stream, consumer: name }, 'bus consumer interrupted');
        }
      } while (!state.stopping && !nc.isClosed() && (await reopen()));
      state.messages.stop();
    })();
    return {
      async stop() {
        state.stopping = true;
        await state.messages.close();
        await loop;
      },
    };
  }

  const bus: NatsBus = {
    connection: nc,

    async publish<T>(subject: string, data: T, opts: PublishOptions = {}): Promise<void> {
      if (!isValidSubject(subject)) throw new Error(`invalid subject "${subject}"`);
      streamOf(full(subject));
      const hdrs = createHeaders();
      for (const [k, v] of Object.entries(opts.headers ?? {})) hdrs.set(k, v);
      await js.publish(full(subject), encode(data), { headers: hdrs, ...(opts.msgId !== undefined && { msgID: opts.msgId }) });
      // JetStream keeps the message on disk for its consumers, whatever happens to this process; a
      // duplicate's first copy is stored, so the event is as safe as this publish would have made it.
      opts.onConsumed?.();
    },

    async subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription> {
      const filters = toList(opts.subjects);
      for (const f of filters) if (!isValidFilter(f)) throw new Error(`invalid subject filter "${f}"`);
      const jsm = await jetstreamManager(nc);
      const parts: Subscription[] = [];
      try {
        for (const f of filters) parts.push(await consumeOne(full(f), opts, jsm));
      } catch (err) {
        await Promise.all(parts.map((p) => p.stop()));
        throw err;
      }
      const sub: Subscription = {
        async stop() {
          subscriptions.delete(sub);
          await Promise.all(parts.map((p) => p.stop()));
        },
      };
      subscriptions.add(sub);
      return sub;
    },

    async watch<T>(subjects: string | string[], handler: (m: BusMessage<T>) => void): Promise<Subscription> {
      const filters = toList(subjects);
      for (const f of filters) if (!isValidFilter(f)) throw new Error(`invalid subject filter "${f}"`);
      const subs = filters.map((f) =>
        nc.subscribe(full(f), {
          callback: (err: Error | null, m: { subject: string; data: Uint8Array; headers?: MsgHdrs }) => {
            if (err) return void log?.warn({ err }, 'bus watch subscription error');
            try {
              const msg = toMessage<T>(m.subject, m.data, m.headers, 0, false);
              handler(msg);
            } catch (e) {
              log?.error({ err: e, subject: m.subject }, 'bus watch handler threw');
            }
          },
        }),
      );
      await nc.flush();
      const sub: Subscription = {
        async stop() {
          subscriptions.delete(sub);
          for (const s of subs) s.unsubscribe();
        },
      };
      subscriptions.add(sub);
      return sub;
    },

    async close(): Promise<void> {
      if (nc.isClosed()) return;
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await nc.drain();
    },
  };
  return bus;
}

function fromHeaders(hdrs: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of hdrs?.keys() ?? []) if (k !== 'Nats-Msg-Id') out[k] = hdrs!.get(k);
  return out;
}

async function ensureStream(jsm: JetStreamManager, spec: StreamSpec, log: Logger | undefined): Promise<void> {
  const config = { name: spec.name, subjects: spec.subjects, max_age: nanos(spec.maxAgeMs), duplicate_window: nanos(DUPLICATE_WINDOW_MS) };
  try {
    const info = await jsm.streams.info(spec.name);
    const same = info.config.max_age === config.max_age && spec.subjects.every((s) => info.config.subjects?.includes(s));
    if (!same) {
      await jsm.streams.update(spec.name, { ...info.config, ...config, subjects: [...new Set([...(info.config.subjects ?? []), ...spec.subjects])] });
      log?.info({ stream: spec.name }, 'bus stream updated');
    }
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === STREAM_NOT_FOUND)) throw err;
    await jsm.streams.add(config);
    log?.info({ stream: spec.name, subjects: spec.subjects }, 'bus stream created');
  }
}

async function ensureConsumer(jsm: JetStreamManager, stream: string, config: { durable_name: string; filter_subject: string; ack_policy: AckPolicy; deliver_policy: DeliverPolicy; ack_wait: number; max_deliver: number }): Promise<void> {
  try {
    const info = await jsm.consumers.info(stream, config.durable_name);
    if (info.config.ack_wait !== config.ack_wait || info.config.max_deliver !== config.max_deliver) {
      await jsm.consumers.update(stream, config.durable_name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
    }
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === CONSUMER_NOT_FOUND)) throw err;
    await jsm.consumers.add(stream, config);
  }
}

async function watchConnection(nc: NatsConnection, log: Logger | undefined, onReconnect: () => void): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') log?.warn({ server: s.server }, 'bus disconnected; reconnecting');
    else if (s.type === 'reconnect') {
      log?.info({ server: s.server }, 'bus reconnected');
      onReconnect();
    }
    else if (s.type === 'error') log?.error({ err: s.error }, 'bus connection error');
  }
}
