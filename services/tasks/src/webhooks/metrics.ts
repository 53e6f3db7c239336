import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptOutcome } from './sender';

export type AttemptKind = 'success' | 'http_error' | 'timeout' | 'refused' | 'connection_error';

/** Webhook metrics: attempts by outcome, final deliveries by outcome, attempt latency by outcome. */
export class WebhookMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly latency: Histogram<'outcome'>;

  constructor(registry: Registry) {
    this.attempts = new Counter({ name: 'tollgate_webhook_attempts_total', help: 'Webhook HTTP attempts by outcome', labelNames: ['outcome'], registers: [registry] });
    this.deliveries = new Counter({ name: 'tollgate_webhook_deliveries_total', help: 'Webhook deliveries that ended, by outcome (succeeded, failed)', labelNames: ['outcome'], registers: [registry] });
    this.latency = new Histogram({
      name: 'tollgate_webhook_delivery_duration_seconds',
      help: 'Webhook attempt latency (request to complete answer), by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  attempt(o: AttemptOutcome): void {
    const kind = attemptKind(o);
    this.attempts.inc({ outcome: kind });
    this.latency.observe({ outcome: kind }, o.latencyMs / 1000);
  }

  ended(outcome: 'succeeded' | 'failed'): void {
    this.deliveries.inc({ outcome });
  }
}

export function attemptKind(o: AttemptOutcome): AttemptKind {
  if (o.ok) return 'success';
  if (o.statusCode > 0) return 'http_error';
  if (o.error.startsWith('refused')) return 'refused';
  if (o.error.startsWith('no complete answer')) return 'timeout';
  return 'connection_error';
}
