/** The webhook settings of the tasks service (config.ts reads them; docs/webhooks.md lists them). */
export interface WebhookSettings {
  retryBaseMs: number;
  maxAttempts: number;
  allowPrivateNetworks: boolean;
  /** A subscription failing without a success for this long is disabled. */
  disableAfterMs: number;
  /** One attempt's limit (connect, headers and body). */
  timeoutMs: number;
  /** Attempts in flight per replica, and per subscription (or per-submission URL). */
  concurrency: number;
  endpointConcurrency: number;
  /** Attempts in flight per replica for the subscriptions and submissions of one account. */
  accountConcurrency: number;
  /** Idle check for due deliveries when nothing wakes the dispatcher. */
  pollMs: number;
  /** Subscriptions per account. */
  maxPerAccount: number;
  workerId: string;
}

/** A rotated secret keeps signing next to the new one for this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000;
