import type { BillingDb } from '../db';
import { Decimal } from '../domain/money';
import type { PriceSnapshot } from '../domain/prices';

export type AdmissionState = 'open' | 'charged' | 'refunded';

export interface Admission {
  taskNumber: string;
  apiKeyId: number;
  accountId: number;
  kind: string;
  appId: string;
  state: AdmissionState;
  reserved: Decimal;
  charged: Decimal | null;
  prices: PriceSnapshot;
}

/** Admissions and their one-time settlement. Prisma only here. */
export class AdmissionRepo {
  constructor(private readonly db: BillingDb) {}

  async find(taskNumber: string): Promise<Admission | null> {
    const row = await this.db.admission.findUnique({ where: { taskNumber } });
    if (!row) return null;
    return {
      taskNumber: row.taskNumber,
      apiKeyId: row.apiKeyId,
      accountId: row.accountId,
      kind: row.kind,
      appId: row.appId,
      state: row.state as AdmissionState,
      reserved: row.reserved,
      charged: row.charged,
      prices: { basis: row.basis, fixed: row.priceFixed, inputToken: row.priceInputToken, outputToken: row.priceOutputToken, second: row.priceSecond },
    };
  }

  /**
   * One statement: moves the admission from open to charged/refunded (only once: the state is
   * the condition), moves its reservation into used_quota (or drops it), frees the concurrency
   * slot and writes the ledger row. False when it was already settled.
   */
  async settle(taskNumber: string, outcome: 'charge' | 'refund', charged: Decimal): Promise<boolean> {
    const state = outcome === 'charge' ? 'charged' : 'refunded';
    const amount = charged.toFixed();
    const rows = await this.db.$queryRaw<Array<{ n: number }>>`
      WITH adm AS (
        UPDATE admissions SET state = ${state}, charged = ${amount}::numeric, settled_at = now()
        WHERE task_number = ${taskNumber} AND state = 'open'
        RETURNING api_key_id, account_id, kind, app_id, basis, reserved
      ), usage AS (
        UPDATE key_usage k SET
          used_quota = k.used_quota + ${amount}::numeric,
          reserved = GREATEST(k.reserved - adm.reserved, 0),
          in_flight = GREATEST(k.in_flight - 1, 0),
          updated_at = now()
        FROM adm WHERE k.api_key_id = adm.api_key_id
        RETURNING k.api_key_id
      ), ledger AS (
        INSERT INTO ledger_entries (api_key_id, account_id, kind, app_id, task_number, type, amount, basis)
        SELECT api_key_id, account_id, kind, app_id, ${taskNumber}, ${outcome}::text,
               CASE WHEN ${outcome}::text = 'charge' THEN ${amount}::numeric ELSE reserved END, basis
        FROM adm
      )
      SELECT count(*)::int AS n FROM adm`;
    return rows[0].n > 0;
  }

  /** Open admissions older than `ttlSeconds`, oldest first. */
  async stale(ttlSeconds: number, limit: number): Promise<string[]> {
    const rows = await this.db.$queryRaw<Array<{ task_number: string }>>`
      SELECT task_number FROM admissions
      WHERE state = 'open' AND admitted_at < now() - make_interval(secs => ${ttlSeconds})
      ORDER BY admitted_at LIMIT ${limit}`;
    return rows.map((r) => r.task_number);
  }
}
