import type { HotQueryable } from '@tollgate/kit';
import type { BillingDb } from '../db';
import { isDeadlock } from '../errors';
import { MAX_AMOUNT_TEXT } from '../domain/money';

export type AdmissionState = 'open' | 'charged' | 'refunded';

export interface Settlement {
  taskNumber: string;
  outcome: 'charge' | 'refund';
  inputTokens: number;
  outputTokens: number;
  /** Decimal seconds; '0' when none. */
  seconds: string;
}

export interface SettlementRow {
  taskNumber: string;
  state: AdmissionState;
  charged: string;
  /** True when this call made the settlement (false: it was settled before). */
  settledNow: boolean;
}

/**
 * One statement for any number of settlements: each open admission moves to charged (its price
 * snapshot × the consumed units, rounded half-up to 6 places) or refunded, once (the open state is
 * the condition); the keys' used_quota, reservation and concurrency slots move by the sum per key;
 * a ledger row per settlement. An amount beyond what a money column holds is that largest amount:
 * the statement never fails on one execution's price × units, whatever else it carries.
 */
const SETTLE_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::numeric[])
      AS i(task_number, outcome, input_tokens, output_tokens, seconds)
  ), adm AS (
    UPDATE admissions a SET
      state = CASE WHEN i.outcome = 'charge' THEN 'charged' ELSE 'refunded' END,
      charged = CASE WHEN i.outcome = 'charge'
        THEN LEAST(round(a.price_fixed + a.price_input_token * i.input_tokens + a.price_output_token * i.output_tokens + a.price_second * i.seconds, 6), ${MAX_AMOUNT_TEXT})
        ELSE 0 END,
      settled_at = now()
    FROM input i
    WHERE a.task_number = i.task_number AND a.state = 'open'
    RETURNING a.task_number, a.api_key_id, a.account_id, a.kind, a.app_id, a.basis, a.reserved, a.charged, a.state, i.outcome
  ), per_key AS (
    SELECT api_key_id, sum(charged) AS charged, sum(reserved) AS reserved, count(*)::int AS n FROM adm GROUP BY api_key_id
  ), usage AS (
    UPDATE key_usage k SET
      used_quota = LEAST(k.used_quota + p.charged, ${MAX_AMOUNT_TEXT}),
      reserved = GREATEST(k.reserved - p.reserved, 0),
      in_flight = GREATEST(k.in_flight - p.n, 0),
      updated_at = now()
    FROM per_key p WHERE k.api_key_id = p.api_key_id
    RETURNING k.api_key_id
  ), ledger AS (
    INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis)
    SELECT api_key_id, account_id, kind, app_id, task_number, outcome, CASE WHEN outcome = 'charge' THEN charged ELSE reserved END, basis
    FROM adm
  )
  SELECT task_number, state, charged::text AS charged FROM adm`;

/** Admissions and their one-time settlement; the hot statements on the plain pg pool. */
export class AdmissionRepo {
  constructor(
    private readonly db: BillingDb,
    private readonly hot: HotQueryable,
  ) {}

  /** Settles the open ones among `items` in one statement; every item's state after it (absent: no admission). */
  async settleMany(items: Settlement[]): Promise<Map<string, SettlementRow>> {
    const out = new Map<string, SettlementRow>();
    if (items.length === 0) return out;
    const params = [items.map((i) => i.taskNumber), items.map((i) => i.outcome), items.map((i) => i.inputTokens), items.map((i) => i.outputTokens), items.map((i) => i.seconds || '0')];
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.hot.query<{ task_number: string; state: AdmissionState; charged: string }>(SETTLE_SQL, params);
        for (const r of rows) out.set(r.task_number, { taskNumber: r.task_number, state: r.state, charged: r.charged, settledNow: true });
        break;
      } catch (err) {
        // Two batches touching the same keys in another order: PostgreSQL aborted one, nothing was written.
        if (!isDeadlock(err) || attempt >= 4) throw err;
      }
    }
    const rest = items.map((i) => i.taskNumber).filter((n) => !out.has(n));
    if (rest.length > 0) {
      const { rows } = await this.hot.query<{ task_number: string; state: AdmissionState; charged: string | null }>(
        'SELECT task_number, state, charged::text AS charged FROM admissions WHERE task_number = ANY($1::text[])',
        [rest],
      );
      for (const r of rows) out.set(r.task_number, { taskNumber: r.task_number, state: r.state, charged: r.charged ?? '0', settledNow: false });
    }
    return out;
  }

  /** Extends the lease of the open admissions among `taskNumbers`; how many. */
  async renew(taskNumbers: string[], leaseSeconds: number): Promise<number> {
    if (taskNumbers.length === 0) return 0;
    const res = await this.hot.query(
      `UPDATE admissions SET lease_expires_at = now() + make_interval(secs => $2::int)
       WHERE task_number = ANY($1::text[]) AND state = 'open' AND lease_expires_at IS NOT NULL`,
      [taskNumbers, leaseSeconds],
    );
    return res.rowCount ?? 0;
  }

  /** Open admissions whose lease ran out, longest expired first. */
  async expired(limit: number): Promise<string[]> {
    const { rows } = await this.hot.query<{ task_number: string }>(
      `SELECT task_number FROM admissions WHERE state = 'open' AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.task_number);
  }

  /** Open admissions without a lease (passthrough) older than `ttlSeconds`, oldest first. */
  async stale(ttlSeconds: number, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ task_number: string }>>`
      SELECT task_number FROM admissions
      WHERE state = 'open' AND lease_expires_at IS NULL AND admitted_at < now() - make_interval(secs => ${ttlSeconds})
      ORDER BY admitted_at LIMIT ${limit}`;
    return rows.map((r) => r.task_number);
  }
}
