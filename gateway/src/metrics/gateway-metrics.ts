import { Counter, Histogram, type Registry } from 'prom-client';
import { createMetricsRegistry } from '@tollgate/kit';
import { executionsTotal, quotaRejectionsTotal } from './counters';

/** One gateway instance's metrics: its own registry (several gateways may share a process). */
export interface GatewayMetrics {
  registry: Registry;
  requestsTotal: Counter<'method' | 'route' | 'status'>;
  requestSeconds: Histogram<'method' | 'route' | 'status'>;
}

export function createGatewayMetrics(options: { processMetrics?: boolean } = {}): GatewayMetrics {
  const registry = createMetricsRegistry({ service: 'gateway' }, options);
  registry.registerMetric(executionsTotal);
  registry.registerMetric(quotaRejectionsTotal);
  const labelNames = ['method', 'route', 'status'] as const;
  return {
    registry,
    requestsTotal: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered by the gateway, by method, route template and status',
      labelNames,
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its response finishing (whole stream for SSE), by method, route template and status',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
  };
}
