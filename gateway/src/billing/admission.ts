import { BillingLink } from '@tollgate/kit';
import type { AdmitResponse, SettleResult } from '@tollgate/protos/billing';
import type { GatewayDeps } from '../deps';
import type { KeyPrincipal } from '../auth/api-key';

export interface AdmitOptions {
  /** agent | workflow | aiapp | chatbot | passthrough */
  kind: string;
  appId: string;
  taskNumber: string;
  /** Price only by this basis of the kind; default: every price the kind has (1.0 per execution by default). */
  basis?: string;
  /** Reserved up front for token and duration prices (e.g. max_tokens as outputTokens). */
  estimate?: { inputTokens?: number; outputTokens?: number; seconds?: number };
}

export type SettleOutcome = 'charge' | 'refund';

/** What an execution consumed, or after a client disconnect what was delivered; fixed prices ignore it. */
export interface SettleUnits {
  inputTokens?: number;
  outputTokens?: number;
  /** Task duration in seconds (per_second prices). */
  seconds?: number;
}

/** This gateway's ordered link to billing, made on first use (see BillingLink). */
export function billingLinkOf(deps: GatewayDeps): BillingLink {
  deps.billingLink ??= new BillingLink(deps.upstreams.billing, { settleLingerMs: deps.config.SETTLE_LINGER_MS });
  return deps.billingLink;
}

/**
 * Admits one execution for the authenticated key before it runs: reserves its price against the
 * key's quota and takes requests-per-minute and concurrency capacity, atomically in billing.
 * Throws RESOURCE_EXHAUSTED (→ 429 `{detail}` with Retry-After for rpm/concurrency) when refused,
 * UNAVAILABLE (→ 503 with Retry-After) when billing is at capacity.
 */
export function admitExecution(deps: GatewayDeps, principal: KeyPrincipal, opts: AdmitOptions): Promise<AdmitResponse> {
  return billingLinkOf(deps).admit({
    apiKeyId: principal.key.id,
    accountId: principal.account.id,
    level: principal.account.level,
    quota: principal.key.quota,
    rpmLimit: principal.key.rpmLimit,
    concurrencyLimit: principal.key.concurrencyLimit,
    kind: opts.kind,
    appId: opts.appId,
    taskNumber: opts.taskNumber,
    basis: opts.basis ?? '',
    estimatedInputTokens: Math.max(0, Math.ceil(opts.estimate?.inputTokens ?? 0)),
    estimatedOutputTokens: Math.max(0, Math.ceil(opts.estimate?.outputTokens ?? 0)),
    estimatedSeconds: Math.max(0, Math.ceil(opts.estimate?.seconds ?? 0)),
    // No lease: a provider passthrough call is settled by the gateway, or refunded after the admission TTL.
    leaseSeconds: 0,
  });
}

/**
 * Settles an admitted execution once: 'charge' when it ran (tokens/seconds for variable prices),
 * 'refund' when it failed on our side or never ran. Idempotent by task number. It rides along with
 * this gateway's next admission (applied before it), or goes alone after SETTLE_LINGER_MS; `now`
 * sends it at once.
 */
export function settleExecution(deps: GatewayDeps, taskNumber: string, outcome: SettleOutcome, units: SettleUnits = {}, options: { now?: boolean } = {}): Promise<SettleResult> {
  return billingLinkOf(deps).settle(
    {
      taskNumber,
      outcome,
      units: {
        inputTokens: Math.max(0, Math.floor(units.inputTokens ?? 0)),
        outputTokens: Math.max(0, Math.floor(units.outputTokens ?? 0)),
        seconds: units.seconds !== undefined && units.seconds > 0 ? units.seconds.toFixed(3) : '',
      },
    },
    options,
  );
}
