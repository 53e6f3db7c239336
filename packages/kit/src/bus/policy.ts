import type { StreamSpec } from './types';
import { filterCovers } from './subject';

const HOUR = 3_600_000;

export const DEFAULT_STREAMS: readonly StreamSpec[] = [
  { name: 'TASKS', subjects: ['tasks.>'], maxAgeMs: 24 * HOUR },
  { name: 'DOCS', subjects: ['docs.>'], maxAgeMs: 7 * 24 * HOUR },
  { name: 'KEYS', subjects: ['keys.>'], maxAgeMs: 24 * HOUR },
  { name: 'ACTIVITY', subjects: ['activity.>'], maxAgeMs: 7 * 24 * HOUR },
  { name: 'WEBHOOKS', subjects: ['webhooks.>'], maxAgeMs: 24 * HOUR },
];

export const DEFAULT_MAX_DELIVER = 10;
export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DUPLICATE_WINDOW_MS = 120_000;

export function retryDelayMs(deliveryCount: number): number {
  return Math.min(100 * 2 ** (deliveryCount - 1), 5_000);
}

export function streamFor(streams: readonly StreamSpec[], filter: string): StreamSpec | undefined {
  return streams.find((s) => s.subjects.some((pattern) => filterCovers(pattern, filter)));
}

export function consumerName(durable: string, filter: string): string {
  return `${durable}--${filter.replace(/\./g, '_').replace(/\*/g, 'STAR').replace(/>/g, 'ALL')}`;
}

export function encode(data: unknown): string {
  return data === undefined ? '' : JSON.stringify(data);
}

export function decode<T>(text: string): T {
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
