import type { BillingDb } from '../db';
import { Decimal } from '../domain/money';
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
}

export interface UsageState {
  apiKeyId: number;
  accountId: number;
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
  used_quota: string;
  reserved: string;
  in_flight: number;
  rpm_count: number;
  minute_ends_at: number;
}

const toState = (r: UsageRowRaw): UsageState => ({
  apiKeyId: r.api_key_id,
  accountId: r.account_id,
  usedQuota: new Decimal(r.used_quota),
  reserved: new Decimal(r.reserved),
  inFlight: r.in_flight,
  rpmCount: r.rpm_count,
  minuteEndsAt: Number(r.minute_ends_at),
});

/** Usage per key: the conditional reservation and its release. Prisma only here. */
export class UsageRepo {
  constructor(private readonly db: BillingDb) {}

  /**
   * One statement: reserve against the quota, count the request in the current minute and take a
   * concurrency slot, only if all three limits allow it; the admission and its reserve ledger row
   * are written by the same statement. The row lock makes concurrent callers queue and re-check
   * the condition against the latest committed row. Returns null when a limit refused it (or the
   * key has no usage row yet).
   */
  async tryAdmit(a: AdmitInput): Promise<{ usedQuota: Decimal; reserved: Decimal } | null> {
    const r = a.reservation.toFixed();
    const rows = await this.db.$queryRaw<Array<{ used_quota: string; reserved: string }>>`
      WITH usage AS (
        UPDATE key_usage SET
          reserved = reserved + ${r}::numeric,
          in_flight = in_flight + 1,
          rpm_count = CASE WHEN rpm_window = date_trunc('minute', now()) THEN rpm_count + 1 ELSE 1 END,
          rpm_window = date_trunc('minute', now()),
          quota = ${a.quota}::numeric,
          account_id = ${a.accountId},
          updated_at = now()
        WHERE api_key_id = ${a.apiKeyId}
          AND (${a.quota}::numeric IS NULL OR (
                used_quota + reserved + ${r}::numeric <= ${a.quota}::numeric
            AND (${r}::numeric > 0 OR used_quota + reserved < ${a.quota}::numeric)))
          AND in_flight < ${a.concurrency}
          AND (rpm_window <> date_trunc('minute', now()) OR rpm_count < ${a.rpm})
        RETURNING used_quota, reserved
      ), admission AS (
        INSERT INTO admissions (task_number, api_key_id, account_id, kind, app_id, basis, reserved,
                                price_fixed, price_input_token, price_output_token, price_second)
        SELECT ${a.taskNumber}, ${a.apiKeyId}, ${a.accountId}, ${a.kind}, ${a.appId}, ${a.prices.basis}, ${r}::numeric,
               ${a.prices.fixed.toFixed()}::numeric, ${a.prices.inputToken.toFixed()}::numeric,
               ${a.prices.outputToken.toFixed()}::numeric, ${a.prices.second.toFixed()}::numeric
        FROM usage
      ), ledger AS (
        INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis)
        SELECT ${a.apiKeyId}, ${a.accountId}, ${a.kind}, ${a.appId}, ${a.taskNumber}, 'reserve', ${r}::numeric, ${a.prices.basis}
        FROM usage
      )
      SELECT used_quota::text AS used_quota, reserved::text AS reserved FROM usage`;
    if (rows.length === 0) return null;
    return { usedQuota: new Decimal(rows[0].used_quota), reserved: new Decimal(rows[0].reserved) };
  }

  /** Creates the key's usage row if missing; idempotent. */
  async ensureKey(apiKeyId: number, accountId: number): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO key_usage (api_key_id, account_id) VALUES (${apiKeyId}, ${accountId})
      ON CONFLICT (api_key_id) DO NOTHING`;
  }

  async find(apiKeyId: number): Promise<UsageState | null> {
    const rows = await this.select([apiKeyId]);
    return rows[0] ?? null;
  }

  async findMany(apiKeyIds: number[]): Promise<UsageState[]> {
    return apiKeyIds.length ? this.select(apiKeyIds) : [];
  }

  private async select(ids: number[]): Promise<UsageState[]> {
    const rows = await this.db.$queryRaw<UsageRowRaw[]>`
      SELECT api_key_id, account_id, used_quota::text AS used_quota, reserved::text AS reserved, in_flight,
             CASE WHEN rpm_window = date_trunc('minute', now()) THEN rpm_count ELSE 0 END AS rpm_count,
             extract(epoch FROM date_trunc('minute', now()) + interval '1 minute')::bigint AS minute_ends_at
      FROM key_usage WHERE api_key_id = ANY(${ids}::int[])`;
    return rows.map(toState);
  }
}
