import { z } from 'zod';
import { envBool } from '@tollgate/kit';
import type { WebhookSettings } from './settings';

const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The webhook variables of the tasks service's configuration (read by config.ts; listed in docs/webhooks.md). */
export const webhookEnvShape = {
  /** First retry wait; each next one doubles (±20 % jitter, at most 8 h). */
  WEBHOOK_RETRY_BASE_MS: positive(60_000),
  /** Attempts of one delivery, the first included: with the defaults the retries span about a day. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(12),
  /** Development only: deliver to loopback, private and link-local addresses (metadata addresses stay refused). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: envBool(false),
  /** A subscription whose deliveries keep failing this long (no success in between) is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: positive(3 * 24 * 60 * 60_000),
  WEBHOOK_TIMEOUT_MS: positive(10_000),
  WEBHOOK_CONCURRENCY: positive(32),
  WEBHOOK_ENDPOINT_CONCURRENCY: positive(4),
  /** Of WEBHOOK_CONCURRENCY, what one account's deliveries may hold: its slow receivers never hold every slot. */
  WEBHOOK_ACCOUNT_CONCURRENCY: positive(8),
  WEBHOOK_POLL_MS: positive(1_000),
  WEBHOOK_MAX_PER_ACCOUNT: positive(20),
  /** The keys service, asked whether a subscriber may read a document. */
  KEYS_GRPC_ADDR: z.string().min(1).default('127.0.0.1:50051'),
};

type WebhookEnv = { [K in keyof typeof webhookEnvShape]: z.infer<(typeof webhookEnvShape)[K]> };

export function webhookSettingsOf(env: WebhookEnv, workerId: string): WebhookSettings & { keysAddress: string } {
  return {
    retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
    maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
    allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
    accountConcurrency: env.WEBHOOK_ACCOUNT_CONCURRENCY,
    pollMs: env.WEBHOOK_POLL_MS,
    maxPerAccount: env.WEBHOOK_MAX_PER_ACCOUNT,
    workerId,
    keysAddress: env.KEYS_GRPC_ADDR,
  };
}
