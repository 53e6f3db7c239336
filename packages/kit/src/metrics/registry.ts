import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A fresh registry per gateway or service instance (several share one process in the embedded
 * system and in tests), with the process metrics and an `instance` label on every series.
 */
export function createMetricsRegistry(labels: Record<string, string>, options: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}
