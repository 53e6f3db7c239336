import { Counter } from 'prom-client';

/**
 * Counters any gateway code may import and increment. They belong to no registry of their own:
 * every gateway instance's registry includes them, so they count per process.
 */
export const executionsTotal = new Counter({
  name: 'tollgate_executions_total',
  help: 'Execution requests answered by the gateway, by kind (agent|workflow|aiapp|chatbot) and outcome (ok: a sync run answered; submitted: an async task accepted; rejected: a 4xx; error: a 5xx or a stream ended by an error event; cancelled: the client left first)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [],
});

/**
 * Requests refused because the key's quota is used up. The gateway counts these itself from the
 * error (a 429 whose AppError carries `details.limit === 'quota'`); increment it by hand only for
 * a rejection that never reaches the error handler (e.g. one written into an open stream).
 */
export const quotaRejectionsTotal = new Counter({
  name: 'tollgate_quota_rejections_total',
  help: 'Requests rejected because the API key quota is exhausted',
  registers: [],
});
