export interface BusMessage<T = unknown> {
  subject: string;
  data: T;
  headers: Record<string, string>;
  /** Stream sequence; 0 for `watch` deliveries. */
  seq: number;
  redelivered: boolean;
}

export interface PublishOptions {
  headers?: Record<string, string>;
  /** Publishes with the same id within the stream's duplicate window are stored once. */
  msgId?: string;
  /**
   * Called once the message is safe from this process dying: on a bus that keeps messages on disk
   * (NATS JetStream) as soon as it is stored; on the in-process bus once every durable consumer
   * that held its subject when it was published has acknowledged it (or given it up after
   * maxDeliver), at once when none did. Outboxes let go of an event only then. A publish dropped as
   * a duplicate (same msgId) is told when the copy already stored is safe: on JetStream at once;
   * on the in-process bus with that copy's own callback (at once if it has none left).
   */
  onConsumed?: () => void;
}

export interface SubscribeOptions<T> {
  /** Consumer name; every subscriber with the same name shares one position and splits the work. */
  durable: string;
  subjects: string | string[];
  handler: (m: BusMessage<T>) => Promise<void>;
  /** Deliveries per message before it is dropped (logged); default 10. */
  maxDeliver?: number;
  /** Time without ack or progress after which the server redelivers; default 30 s. */
  ackWaitMs?: number;
  /** A new durable starts at the next published message instead of the oldest retained one. */
  deliverNew?: boolean;
}

export interface Subscription {
  /** Stops taking messages and waits for the handler in progress. */
  stop(): Promise<void>;
}

export interface EventBus {
  /** Resolves once the message is stored. */
  publish<T>(subject: string, data: T, opts?: PublishOptions): Promise<void>;
  /** At-least-once delivery, acked when the handler resolves; in order per subject within one subscriber. */
  subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription>;
  /** Live messages only, no ack, nothing kept while not watching. */
  watch<T>(subjects: string | string[], handler: (m: BusMessage<T>) => void): Promise<Subscription>;
  close(): Promise<void>;
}

export interface StreamSpec {
  name: string;
  subjects: string[];
  maxAgeMs: number;
}
