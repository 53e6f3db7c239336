import type { EventBus, Logger } from '@tollgate/kit';
import type { DeliveryRepo, AttemptVerdict } from './delivery-repo';
import type { EndpointRepo } from './endpoint-repo';
import { retryDelayMs } from './backoff';
import type { WebhookMetrics } from './metrics';
import { sendWebhook, type AttemptOutcome } from './sender';
import { signatureHeader, newSecret } from './signature';
import type { WebhookSettings } from './settings';
import { webhookChangedSubject, type ClaimedDelivery, type WebhookChangedEvent } from './types';

/** Time an attempt may hold its claim beyond its own timeout before another replica takes it over. */
const LEASE_MARGIN_MS = 30_000;

const targetOf = (d: ClaimedDelivery) => d.endpointId ?? d.url;

/** In-flight counts by key. */
class Counts<K> {
  private readonly counts = new Map<K, number>();
  add(key: K): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  remove(key: K): void {
    const left = (this.counts.get(key) ?? 1) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
  atLeast(limit: number): K[] {
    return [...this.counts].filter(([, n]) => n >= limit).map(([k]) => k);
  }
}

/**
 * Sends due deliveries: claims them from the database one at a time, at most `concurrency` in
 * flight, `endpointConcurrency` per target and `accountConcurrency` per account, so a slow or dead
 * receiver only holds its own slots, and one account's receivers never hold every slot.
 */
export class Dispatcher {
  private readonly byTarget = new Counts<string>();
  private readonly byAccount = new Counts<number>();
  private readonly running = new Set<Promise<void>>();
  private active = 0;
  private stopped = false;
  private poked = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly deliveries: DeliveryRepo,
    private readonly endpoints: EndpointRepo,
    private readonly bus: EventBus,
    private readonly metrics: WebhookMetrics,
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
    /** A subscription was disabled by its failures (the fan-out forgets its copy). */
    private readonly onDisabled: () => void = () => {},
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** New work may be due (a delivery was queued, an attempt ended). */
  poke(): void {
    this.poked = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loop;
    await Promise.allSettled([...this.running]);
    await this.deliveries.releaseLeases(this.settings.workerId).catch((err: unknown) => this.log.warn({ err }, 'webhook leases not released'));
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let waitMs = this.settings.pollMs;
      try {
        await this.fill();
        // Due ones left unclaimed wait for a slot. While attempts are in flight their ends poke the loop; the poll bounds any retry's delay.
        const next = this.active === 0 ? await this.deliveries.nextDueAt() : null;
        const dueIn = next ? next.getTime() - Date.now() : Infinity;
        if (dueIn > 0) waitMs = Math.max(5, Math.min(waitMs, dueIn));
      } catch (err) {
        this.log.error({ err }, 'webhook dispatcher pass failed');
      }
      if (this.stopped) break;
      if (this.poked) {
        this.poked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
      this.poked = false;
    }
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.active < this.settings.concurrency) {
      const busy = { targets: this.byTarget.atLeast(this.settings.endpointConcurrency), accounts: this.byAccount.atLeast(this.settings.accountConcurrency) };
      const d = await this.deliveries.claimNext(this.settings.workerId, this.settings.timeoutMs + LEASE_MARGIN_MS, busy);
      if (!d) return;
      const target = targetOf(d);
      this.active += 1;
      this.byTarget.add(target);
      this.byAccount.add(d.accountId);
      const p = this.attempt(d)
        .catch((err: unknown) => this.log.error({ err, delivery: d.id }, 'webhook attempt not recorded; it is retried when its claim expires'))
        .finally(() => {
          this.active -= 1;
          this.byTarget.remove(target);
          this.byAccount.remove(d.accountId);
          this.running.delete(p);
          this.poke();
        });
      this.running.add(p);
    }
  }

  /** A per-submission delivery may come before its account's default secret exists: make it then. */
  private async secretsOf(d: ClaimedDelivery): Promise<string[]> {
    if (d.secrets.length > 0 || d.endpointId) return d.secrets;
    return [(await this.endpoints.defaultSecret(d.accountId, newSecret)).secret];
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const secrets = await this.secretsOf(d);
    const t = Math.floor(Date.now() / 1000);
    const headers = {
      'Tollgate-Event-Id': d.eventId,
      'Tollgate-Event-Type': d.eventType,
      'Tollgate-Signature': signatureHeader(secrets, t, d.body),
    };
    const outcome = await sendWebhook(d.url, headers, d.body, { timeoutMs: this.settings.timeoutMs, allowPrivate: this.settings.allowPrivateNetworks });
    const verdict = this.verdict(d, outcome);
    const recorded = await this.deliveries.record(d, this.settings.workerId, outcome, verdict, this.settings.disableAfterMs);
    this.metrics.attempt(outcome);
    if (verdict.status !== 'pending') this.metrics.ended(verdict.status);
    this.log.debug({ delivery: d.id, event: d.eventId, attempt: d.attempts + 1, status: outcome.statusCode, error: outcome.error, latencyMs: outcome.latencyMs }, 'webhook attempt');
    if (recorded.disabled) await this.announceDisabled(d);
  }

  private verdict(d: ClaimedDelivery, o: AttemptOutcome): AttemptVerdict {
    if (o.ok) return { status: 'succeeded' };
    const made = d.attempts + 1;
    if (made >= d.maxAttempts) return { status: 'failed' };
    return { status: 'pending', nextAttemptAt: new Date(Date.now() + retryDelayMs(this.settings.retryBaseMs, made)) };
  }

  private async announceDisabled(d: ClaimedDelivery): Promise<void> {
    this.onDisabled();
    this.log.warn({ webhook: d.endpointId }, 'webhook subscription disabled after failing deliveries');
    const event: WebhookChangedEvent = { id: d.endpointId!, account_id: d.accountId, change: 'disabled', by_account_id: 0, at: new Date().toISOString() };
    await this.bus.publish(webhookChangedSubject(d.endpointId!), event).catch((err: unknown) => this.log.warn({ err }, 'webhooks.changed not published'));
  }
}
