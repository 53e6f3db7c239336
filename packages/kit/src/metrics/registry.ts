import { Registry, collectDefaultMetrics } from 'prom-client';

const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * A fresh registry per gateway or service instance (several share one process in the embedded
 * system and in tests), with the process metrics and an `instance` label on every series.
 */
export function createMetricsRegistry(labels: Record<string, string>, options: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  // The event-loop delay histogram samples on a timer; prom-client's default (every 10 ms) is 100
  // wake-ups a second of an otherwise idle process.
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}
