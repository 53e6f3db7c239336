import { type JetStreamPublishOptions, type jetstream } from '@nats-io/jetstream';
import * as transport from '@nats-io/transport-node';

/*
 * @nats-io/transport-node re-exports its API from "@nats-io/nats-core/internal", a subpath that
 * TypeScript's node10 resolution cannot see, so its types arrive as `any`. The types are taken
 * from @nats-io/jetstream's signatures instead, which reach nats-core's root entry.
 */
export type NatsConnection = Parameters<typeof jetstream>[0];
export type MsgHdrs = NonNullable<JetStreamPublishOptions['headers']>;

export interface ConnectOptions {
  servers: string | string[];
  name: string;
  maxReconnectAttempts: number;
  reconnectTimeWait: number;
}

export const connect: (opts: ConnectOptions) => Promise<NatsConnection> = transport.connect;
export const createHeaders: () => MsgHdrs = (transport as unknown as { headers: () => MsgHdrs }).headers;

export function nanos(ms: number): number {
  return ms * 1_000_000;
}
