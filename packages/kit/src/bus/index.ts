export type { BusMessage, EventBus, PublishOptions, StreamSpec, SubscribeOptions, Subscription } from './types';
export { DEFAULT_STREAMS } from './policy';
export { createMemoryBus, type MemoryBusOptions } from './memory-bus';
export { connectNatsBus, type NatsBus, type NatsBusOptions } from './nats-bus';
export { subjectMatches } from './subject';
export { connectPortBus, serveBusOnPort } from './port-bus';
