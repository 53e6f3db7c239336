import type { TasksDb } from '../repo/prisma-types';
import { ts } from '../repo/task-sql';
import type { AttemptOutcome } from './sender';
import type { ClaimedDelivery, DeliveryWithAttempts, NewDelivery } from './types';


/** What happens to a delivery after an attempt. */
export type AttemptVerdict = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

/** The result of recording an attempt: whether the subscription was disabled by it. */
export interface Recorded {
  disabled: boolean;
}

/** The durable queue of deliveries: rows claimed with a lease (`FOR UPDATE SKIP LOCKED`), attempts logged. */
export class DeliveryRepo {
  constructor(private readonly db: TasksDb) {}

  /** Queues deliveries; one already queued (same id: same event and target) is left alone. */
  async enqueue(deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const now = new Date();
    await this.db.webhookDelivery.createMany({ data: deliveries.map((d) => ({ ...d, nextAttemptAt: now })), skipDuplicates: true });
  }

  /**
   * Claims the oldest due delivery whose target (subscription, or URL for a per-submission webhook)
   * and account are not busy, of an active subscription, for `leaseMs`; with where and how to sign
   * it, in one statement.
   */
  async claimNext(owner: string, leaseMs: number, busy: { targets: string[]; accounts: number[] }): Promise<ClaimedDelivery | null> {
    const now = ts(new Date());
    const rows = await this.db.$queryRaw<ClaimedDelivery[]>`
      WITH claimed AS (
        UPDATE webhook_deliveries SET lease_owner = ${owner}, lease_expires_at = ${ts(new Date(Date.now() + leaseMs))}::timestamp
        WHERE id = (
          SELECT d.id FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}::timestamp
            AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ${now}::timestamp)
            AND (d.endpoint_id IS NULL OR e.active)
            AND NOT (COALESCE(d.endpoint_id, d.url) = ANY(${busy.targets}::text[]))
            AND NOT (d.account_id = ANY(${busy.accounts}::int[]))
          ORDER BY d.next_attempt_at LIMIT 1 FOR UPDATE OF d SKIP LOCKED)
        RETURNING id, event_id, event_type, endpoint_id, account_id, url, body, attempts, max_attempts)
      SELECT c.id, c.event_id AS "eventId", c.event_type AS "eventType", c.endpoint_id AS "endpointId", c.account_id AS "accountId",
             COALESCE(e.url, c.url) AS url, c.body, c.attempts, c.max_attempts AS "maxAttempts",
             array_remove(ARRAY[COALESCE(e.secret, s.secret), CASE WHEN e.previous_secret_until > ${now}::timestamp THEN e.previous_secret END], NULL) AS secrets
      FROM claimed c
      LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
      LEFT JOIN webhook_account_secrets s ON c.endpoint_id IS NULL AND s.account_id = c.account_id`;
    return rows[0] ?? null;
  }

  /** When the next delivery falls due (for the dispatcher's sleep), or null when none is pending. */
  async nextDueAt(): Promise<Date | null> {
    const row = await this.db.webhookDelivery.findFirst({ where: { status: 'pending' }, orderBy: { nextAttemptAt: 'asc' }, select: { nextAttemptAt: true } });
    return row?.nextAttemptAt ?? null;
  }

  /**
   * Logs the attempt and moves the delivery on, in one statement (so atomically); for a
   * subscription, a success clears its failure record and a failure starts one, disabling it once
   * it has lasted `disableAfterMs`. Nothing is written when this owner no longer holds the claim.
   */
  async record(d: Pick<ClaimedDelivery, 'id'>, owner: string, outcome: AttemptOutcome, verdict: AttemptVerdict, disableAfterMs: number): Promise<Recorded> {
    const now = new Date();
    const next = verdict.status === 'pending' ? ts(verdict.nextAttemptAt) : null;
    const cutoff = ts(new Date(now.getTime() - disableAfterMs));
    const last = (outcome.error || `HTTP ${outcome.statusCode}`).slice(0, 200);
    const rows = await this.db.$queryRaw<Array<{ recorded: number; disabled: boolean | null }>>`
      WITH d AS (
        UPDATE webhook_deliveries SET attempts = attempts + 1, status = ${verdict.status}, next_attempt_at = ${next}::timestamp,
               lease_owner = NULL, lease_expires_at = NULL, updated_at = ${ts(now)}::timestamp
        WHERE id = ${d.id} AND lease_owner = ${owner}
        RETURNING id, endpoint_id, attempts),
      a AS (
        INSERT INTO webhook_attempts (delivery_id, number, at, status_code, latency_ms, response_body, error)
        SELECT id, attempts, ${ts(now)}::timestamp, ${outcome.statusCode}::int, ${outcome.latencyMs}::int, ${outcome.responseBody}::text, ${outcome.error.slice(0, 500)}::text FROM d
        RETURNING delivery_id),
      e AS (
        UPDATE webhook_endpoints SET
          failing_since = CASE WHEN ${outcome.ok}::boolean THEN NULL ELSE COALESCE(failing_since, ${ts(now)}::timestamp) END,
          active = NOT (NOT ${outcome.ok}::boolean AND failing_since IS NOT NULL AND failing_since <= ${cutoff}::timestamp),
          disabled_reason = CASE WHEN NOT ${outcome.ok}::boolean AND failing_since IS NOT NULL AND failing_since <= ${cutoff}::timestamp
            THEN 'disabled after failing deliveries since ' || to_char(failing_since, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ' (last: ' || ${last}::text || ')'
            ELSE disabled_reason END,
          updated_at = CASE WHEN NOT ${outcome.ok}::boolean AND failing_since IS NOT NULL AND failing_since <= ${cutoff}::timestamp THEN ${ts(now)}::timestamp ELSE updated_at END
        WHERE id = (SELECT endpoint_id FROM d) AND active AND (NOT ${outcome.ok}::boolean OR failing_since IS NOT NULL)
        RETURNING active)
      SELECT (SELECT count(*)::int FROM a) AS recorded, (SELECT bool_or(NOT active) FROM e) AS disabled`;
    return { disabled: rows[0]?.disabled === true };
  }

  /** Lets another replica claim this owner's deliveries at once (graceful shutdown). */
  async releaseLeases(owner: string): Promise<void> {
    await this.db.webhookDelivery.updateMany({ where: { leaseOwner: owner }, data: { leaseOwner: null, leaseExpiresAt: null } });
  }

  /** A subscription's deliveries, newest first, with their attempts. */
  listForEndpoint(endpointId: string, limit: number): Promise<DeliveryWithAttempts[]> {
    return this.db.webhookDelivery.findMany({ where: { endpointId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, include: { attemptLog: { orderBy: { number: 'asc' } } } });
  }

  find(id: string): Promise<DeliveryWithAttempts | null> {
    return this.db.webhookDelivery.findUnique({ where: { id }, include: { attemptLog: { orderBy: { number: 'asc' } } } });
  }

  /** One more attempt, now, of the same event (same id, same body), whatever the delivery's state. */
  async redeliver(id: string): Promise<DeliveryWithAttempts> {
    await this.db.$executeRaw`
      UPDATE webhook_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = ${ts(new Date())}::timestamp,
             lease_owner = NULL, lease_expires_at = NULL, updated_at = ${ts(new Date())}::timestamp
      WHERE id = ${id}`;
    return (await this.find(id))!;
  }
}
