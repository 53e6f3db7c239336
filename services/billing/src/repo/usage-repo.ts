import type { HotQueryable, HotQueryOptions } from '@tollgate/kit';
import type { BillingDb } from '../db';
import { Decimal, MAX_AMOUNT_TEXT } from '../domain/money';
import type { PriceSnapshot } from '../domain/prices';

export interface AdmitInput {
  apiKeyId: number;
  accountId: number;
  kind: string;
  appId: string;
  taskNumber: string;
  /** null = unlimited */
  quota: string | null;
  reservation: Decimal;
  prices: PriceSnapshot;
  rpm: number;
  concurrency: number;
  /** > 0: the admission's lease; 0 = none (refunded after the admission TTL). */
  leaseSeconds: number;
  /** Task numbers of ended executions whose settlement follows: their open admissions hold no concurrency slot. */
  finishing: string[];
}

/**
 * The key's open admissions among the finishing executions, locked (a settlement of one of them
 * running meanwhile is waited for, and then it is no longer open), in the order the settlement
 * statement takes its locks: admissions before the key's usage row.
 */
const FINISHING_OF_KEY = `
  SELECT count(*)::int AS n FROM (
    SELECT 1 FROM admissions f WHERE f.task_number = ANY($16::text[]) AND f.api_key_id = $1 AND f.state = 'open' ORDER BY f.task_number FOR UPDATE
  ) held`;

/** The quota an admission is checked against: the row's once SetKeyQuota set it, else the caller's ($3). */
const KEY_QUOTA = '(CASE WHEN k.quota_managed THEN k.quota ELSE $3::numeric END)';

const ADMIT_SQL = `
  WITH finishing AS (${FINISHING_OF_KEY}
  ), usage AS (
    INSERT INTO key_usage AS k (api_key_id, account_id, quota, reserved, in_flight, rpm_count, rpm_window, updated_at)
    SELECT $1, $2, $3::numeric, $4::numeric, 1, 1, date_trunc('minute', now()), now()
    FROM finishing
    WHERE ($3::numeric IS NULL OR ($4::numeric <= $3::numeric AND ($4::numeric > 0 OR 0 < $3::numeric)))
      AND $5::int >= 1 AND $6::int >= 1
    ON CONFLICT (api_key_id) DO UPDATE SET
      reserved = LEAST(k.reserved + $4::numeric, ${MAX_AMOUNT_TEXT}),
      in_flight = k.in_flight + 1,
      rpm_count = CASE WHEN k.rpm_window = date_trunc('minute', now()) THEN k.rpm_count + 1 ELSE 1 END,
      rpm_window = date_trunc('minute', now()),
      quota = ${KEY_QUOTA},
      account_id = $2,
      updated_at = now()
    WHERE (${KEY_QUOTA} IS NULL OR (
            k.used_quota + k.reserved + $4::numeric <= ${KEY_QUOTA}
        AND ($4::numeric > 0 OR k.used_quota + k.reserved < ${KEY_QUOTA})))
      AND k.in_flight - (SELECT n FROM finishing) < $5::int
      AND (k.rpm_window <> date_trunc('minute', now()) OR k.rpm_count < $6::int)
    RETURNING used_quota, reserved, quota
  ), admission AS (
    INSERT INTO admissions (task_number, api_key_id, account_id, kind, app_id, basis, reserved,
                            price_fixed, price_input_token, price_output_token, price_second, lease_expires_at)
    SELECT $7, $1, $2, $8, $9, $10, $4::numeric, $11::numeric, $12::numeric, $13::numeric, $14::numeric,
           CASE WHEN $15::int > 0 THEN now() + make_interval(secs => $15::int) END
    FROM usage
  ), ledger AS (
    INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis)
    SELECT $1, $2, $8, $9, $7, 'reserve', $4::numeric, $10 FROM usage
  )
  SELECT used_quota::text AS used_quota, reserved::text AS reserved, quota::text AS quota FROM usage`;

/**
 * Admits a batch in one statement, for the keys whose usage row exists: the rows are locked in key
 * order, and each key's items are taken in the batch's order while all three limits still allow
 * the next one (the sums and counts run over the items before it), exactly as one statement per
 * item in that order would decide them. Items after a key's first refusal, items of keys without
 * a row and task numbers already admitted are left out, for the one-item statement to decide.
 * The batch's finishing executions (the same list on every item) are left out of their keys'
 * in-flight counts, as in ADMIT_SQL.
 */
const ADMIT_MANY_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::int[], $2::int[], $3::numeric[], $4::numeric[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[],
                         $10::text[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[], $15::int[])
      WITH ORDINALITY AS i(api_key_id, account_id, quota, reservation, concurrency, rpm, task_number, kind, app_id,
                           basis, price_fixed, price_input_token, price_output_token, price_second, lease_seconds, idx)
  ), finishing AS (
    SELECT api_key_id, count(*)::int AS n FROM (
      SELECT f.api_key_id FROM admissions f WHERE f.task_number = ANY($16::text[]) AND f.state = 'open' ORDER BY f.task_number FOR UPDATE
    ) held GROUP BY api_key_id
  ), locked AS (
    SELECT k.api_key_id, k.used_quota, k.reserved, k.quota AS key_quota, k.quota_managed,
           k.in_flight - COALESCE((SELECT f.n FROM finishing f WHERE f.api_key_id = k.api_key_id), 0) AS in_flight,
           CASE WHEN k.rpm_window = date_trunc('minute', now()) THEN k.rpm_count ELSE 0 END AS rpm_now
    FROM key_usage k WHERE k.api_key_id IN (SELECT api_key_id FROM input)
      -- the finishing admissions are locked before any usage row (the settlement's order)
      AND (SELECT count(*) FROM finishing) >= 0
    ORDER BY k.api_key_id FOR UPDATE
  ), ranked AS (
    SELECT i.api_key_id, i.account_id, CASE WHEN l.quota_managed THEN l.key_quota ELSE i.quota END AS quota, i.reservation, i.concurrency, i.rpm,
           i.task_number, i.kind, i.app_id, i.basis, i.price_fixed, i.price_input_token, i.price_output_token, i.price_second,
           i.lease_seconds, i.idx, l.used_quota, l.reserved AS key_reserved, l.in_flight, l.rpm_now,
           sum(i.reservation) OVER w AS reserved_through, row_number() OVER w AS nth
    FROM input i JOIN locked l USING (api_key_id)
    WHERE NOT EXISTS (SELECT 1 FROM admissions a WHERE a.task_number = i.task_number)
    WINDOW w AS (PARTITION BY i.api_key_id ORDER BY i.idx)
  ), judged AS (
    SELECT r.*,
           (r.quota IS NULL OR (r.used_quota + r.key_reserved + r.reserved_through <= r.quota
                                AND (r.reservation > 0 OR r.used_quota + r.key_reserved + r.reserved_through < r.quota)))
           AND r.in_flight + r.nth <= r.concurrency
           AND r.rpm_now + r.nth <= r.rpm AS fits
    FROM ranked r
  ), admitted AS (
    SELECT j.* FROM judged j
    WHERE NOT EXISTS (SELECT 1 FROM judged e WHERE e.api_key_id = j.api_key_id AND e.idx <= j.idx AND NOT e.fits)
  ), per_key AS (
    SELECT api_key_id, sum(reservation) AS reservation, count(*)::int AS n,
           (array_agg(quota ORDER BY idx DESC))[1] AS quota, (array_agg(account_id ORDER BY idx DESC))[1] AS account_id
    FROM admitted GROUP BY api_key_id
  ), usage AS (
    UPDATE key_usage k SET
      reserved = LEAST(k.reserved + p.reservation, ${MAX_AMOUNT_TEXT}),
      in_flight = k.in_flight + p.n,
      rpm_count = l.rpm_now + p.n,
      rpm_window = date_trunc('minute', now()),
      quota = p.quota,
      account_id = p.account_id,
      updated_at = now()
    FROM per_key p JOIN locked l USING (api_key_id)
    WHERE k.api_key_id = p.api_key_id
  ), admission AS (
    INSERT INTO admissions (task_number, api_key_id, account_id, kind, app_id, basis, reserved,
                            price_fixed, price_input_token, price_output_token, price_second, lease_expires_at)
    SELECT task_number, api_key_id, account_id, kind, app_id, basis, reservation,
           price_fixed, price_input_token, price_output_token, price_second,
           CASE WHEN lease_seconds > 0 THEN now() + make_interval(secs => lease_seconds) END
    FROM admitted
  ), ledger AS (
    INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis)
    SELECT api_key_id, account_id, kind, app_id, task_number, 'reserve', reservation, basis FROM admitted
  )
  SELECT idx::int AS idx, used_quota::text AS used_quota, (key_reserved + reserved_through)::text AS reserved, quota::text AS quota FROM admitted`;

const SET_QUOTA_SQL = `
  INSERT INTO key_usage AS k (api_key_id, account_id, quota, quota_managed)
  VALUES ($1, $2, $3::numeric, true)
  ON CONFLICT (api_key_id) DO UPDATE SET quota = $3::numeric, quota_managed = true, updated_at = now()
  WHERE $4::boolean OR $3::numeric IS NULL OR k.used_quota + k.reserved <= $3::numeric
  RETURNING used_quota::text AS used_quota, reserved::text AS reserved, in_flight`;

/**
 * After these the batch is decided item by item: a task number admitted twice (within the batch or
 * by a concurrent call), two statements locking keys in turn, or a value PostgreSQL refused (class
 * 22, e.g. a reservation past the column's size), which must fail only the item that carries it.
 */
const leaveToOneByOne = (err: unknown) => /^(23505|40P01|22)/.test((err as { code?: string }).code ?? '');

export interface AdmittedUsage {
  usedQuota: Decimal;
  reserved: Decimal;
  /** The quota the admission was checked against (the key's own once SetKeyQuota set it); null = unlimited. */
  quota?: Decimal | null;
}

export interface UsageState {
  apiKeyId: number;
  accountId: number;
  /** The quota SetKeyQuota set (null = unlimited); undefined while admissions bring it. */
  managedQuota?: Decimal | null;
  usedQuota: Decimal;
  reserved: Decimal;
  inFlight: number;
  /** Requests counted in the current minute (0 when the stored window is an older minute). */
  rpmCount: number;
  /** Unix seconds at which the current minute ends. */
  minuteEndsAt: number;
}

interface UsageRowRaw {
  api_key_id: number;
  account_id: number;
  quota: string | null;
  quota_managed: boolean;
  used_quota: string;
  reserved: string;
  in_flight: number;
  rpm_count: number;
  minute_ends_at: number;
}

const decimalOrNull = (text: string | null): Decimal | null => (text === null ? null : new Decimal(text));

const toState = (r: UsageRowRaw): UsageState => ({
  apiKeyId: r.api_key_id,
  accountId: r.account_id,
  managedQuota: r.quota_managed ? decimalOrNull(r.quota) : undefined,
  usedQuota: new Decimal(r.used_quota),
  reserved: new Decimal(r.reserved),
  inFlight: r.in_flight,
  rpmCount: r.rpm_count,
  minuteEndsAt: Number(r.minute_ends_at),
});

/** Usage per key: the conditional reservation and its release. Prisma only here. */
export class UsageRepo {
  constructor(
    private readonly db: BillingDb,
    private readonly hot: HotQueryable,
    /** Reads on their own pool: admissions queueing on a key's row lock never hold them up. */
    private readonly reads: HotQueryable = hot,
  ) {}

  /**
   * One statement on the hot pool: creates the key's usage row on its first admission, reserves
   * against the quota, counts the request in the current minute and takes a concurrency slot, only
   * if all three limits allow it; the admission (with its lease) and its reserve ledger row are
   * written by the same statement. The row lock makes concurrent callers queue and re-check the
   * condition against the latest committed row. Returns null when a limit refused it.
   */
  async tryAdmit(a: AdmitInput, options: HotQueryOptions = {}): Promise<AdmittedUsage | null> {
    const { rows } = await this.hot.query<{ used_quota: string; reserved: string; quota: string | null }>(ADMIT_SQL, [
      a.apiKeyId,
      a.accountId,
      a.quota,
      a.reservation.toFixed(),
      a.concurrency,
      a.rpm,
      a.taskNumber,
      a.kind,
      a.appId,
      a.prices.basis,
      a.prices.fixed.toFixed(),
      a.prices.inputToken.toFixed(),
      a.prices.outputToken.toFixed(),
      a.prices.second.toFixed(),
      a.leaseSeconds,
      a.finishing,
    ], options);
    if (rows.length === 0) return null;
    return { usedQuota: new Decimal(rows[0].used_quota), reserved: new Decimal(rows[0].reserved), quota: decimalOrNull(rows[0].quota) };
  }

  /**
   * Sets a key's quota under its usage row's lock (the lock every admission takes), refusing a
   * quota below used + reserved unless `force`; creates the row for a key never admitted. From
   * then on the row's quota is the one admissions check. Returns null when refused.
   */
  async setQuota(apiKeyId: number, accountId: number, quota: string | null, force: boolean): Promise<(AdmittedUsage & { inFlight: number }) | null> {
    const { rows } = await this.hot.query<{ used_quota: string; reserved: string; in_flight: number }>(SET_QUOTA_SQL, [apiKeyId, accountId, quota, force]);
    if (rows.length === 0) return null;
    return { usedQuota: new Decimal(rows[0].used_quota), reserved: new Decimal(rows[0].reserved), inFlight: rows[0].in_flight };
  }

  /**
   * ADMIT_MANY_SQL: the key's usage after each admitted item (by position in `batch`); undefined
   * for the items it left to `tryAdmit`, every one of them when the statement had to be dropped.
   */
  async tryAdmitMany(batch: AdmitInput[], options: HotQueryOptions = {}): Promise<Array<AdmittedUsage | undefined>> {
    const column = <T>(f: (a: AdmitInput) => T) => batch.map(f);
    let rows: Array<{ idx: number; used_quota: string; reserved: string; quota: string | null }>;
    try {
      ({ rows } = await this.hot.query<{ idx: number; used_quota: string; reserved: string; quota: string | null }>(
        ADMIT_MANY_SQL,
        [
          column((a) => a.apiKeyId),
          column((a) => a.accountId),
          column((a) => a.quota),
          column((a) => a.reservation.toFixed()),
          column((a) => a.concurrency),
          column((a) => a.rpm),
          column((a) => a.taskNumber),
          column((a) => a.kind),
          column((a) => a.appId),
          column((a) => a.prices.basis),
          column((a) => a.prices.fixed.toFixed()),
          column((a) => a.prices.inputToken.toFixed()),
          column((a) => a.prices.outputToken.toFixed()),
          column((a) => a.prices.second.toFixed()),
          column((a) => a.leaseSeconds),
          batch[0].finishing,
        ],
        options,
      ));
    } catch (err) {
      if (leaveToOneByOne(err)) return batch.map(() => undefined);
      throw err;
    }
    const out: Array<AdmittedUsage | undefined> = batch.map(() => undefined);
    for (const r of rows) out[r.idx - 1] = { usedQuota: new Decimal(r.used_quota), reserved: new Decimal(r.reserved), quota: decimalOrNull(r.quota) };
    return out;
  }

  /** Creates the key's usage row if missing; idempotent. */
  async ensureKey(apiKeyId: number, accountId: number): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO key_usage (api_key_id, account_id) VALUES (${apiKeyId}, ${accountId})
      ON CONFLICT (api_key_id) DO NOTHING`;
  }

  /** How many of `taskNumbers` are open admissions of the key. */
  async openAmong(apiKeyId: number, taskNumbers: string[]): Promise<number> {
    if (taskNumbers.length === 0) return 0;
    const { rows } = await this.reads.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM admissions WHERE task_number = ANY($1::text[]) AND api_key_id = $2 AND state = 'open'`,
      [taskNumbers, apiKeyId],
    );
    return rows[0].n;
  }

  async find(apiKeyId: number): Promise<UsageState | null> {
    const rows = await this.select([apiKeyId]);
    return rows[0] ?? null;
  }

  async findMany(apiKeyIds: number[]): Promise<UsageState[]> {
    return apiKeyIds.length ? this.select(apiKeyIds) : [];
  }

  /** On the hot pool: the gateway reads a key's usage on every call that spends quota. */
  private async select(ids: number[]): Promise<UsageState[]> {
    const { rows } = await this.reads.query<UsageRowRaw>(
      `SELECT api_key_id, account_id, quota::text AS quota, quota_managed, used_quota::text AS used_quota, reserved::text AS reserved, in_flight,
              CASE WHEN rpm_window = date_trunc('minute', now()) THEN rpm_count ELSE 0 END AS rpm_count,
              extract(epoch FROM date_trunc('minute', now()) + interval '1 minute')::bigint AS minute_ends_at
       FROM key_usage WHERE api_key_id = ANY($1::int[])`,
      [ids],
    );
    return rows.map(toState);
  }
}
