import type { BillingDb } from '../db';
import { Decimal } from '../domain/money';

export interface BillLineRow {
  kind: string;
  appId: string;
  apiKeyId: number;
  count: number;
  amount: Decimal;
}

export interface UsageDayRow {
  day: string;
  kind: string;
  count: number;
  amount: Decimal;
}

export interface StoredBill {
  total: Decimal;
  lines: BillLineRow[];
  frozenAt: Date;
}

interface LineJson {
  kind: string;
  app_id: string;
  api_key_id: number;
  count: number;
  amount: string;
}

/** Read side of the ledger (charges only: what the account pays) and the frozen monthly bills. */
export class LedgerRepo {
  constructor(private readonly db: BillingDb) {}

  async chargesByLine(accountId: number, from: Date, to: Date): Promise<BillLineRow[]> {
    const rows = await this.db.$queryRaw<Array<{ kind: string; app_id: string; api_key_id: number; count: number; amount: string }>>`
      SELECT kind, app_id, api_key_id, count(*)::int AS count, sum(amount)::text AS amount
      FROM ledger_entries
      WHERE type = 'charge' AND account_id = ${accountId} AND created_at >= ${from} AND created_at < ${to}
      GROUP BY kind, app_id, api_key_id ORDER BY kind, app_id, api_key_id`;
    return rows.map((r) => ({ kind: r.kind, appId: r.app_id, apiKeyId: r.api_key_id, count: r.count, amount: new Decimal(r.amount) }));
  }

  async chargesByDay(accountId: number, apiKeyId: number, from: Date, to: Date): Promise<UsageDayRow[]> {
    const rows = await this.db.$queryRaw<Array<{ day: string; kind: string; count: number; amount: string }>>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, kind, count(*)::int AS count, sum(amount)::text AS amount
      FROM ledger_entries
      WHERE type = 'charge' AND account_id = ${accountId} AND (${apiKeyId}::int = 0 OR api_key_id = ${apiKeyId}::int)
        AND created_at >= ${from} AND created_at < ${to}
      GROUP BY 1, 2 ORDER BY 1, 2`;
    return rows.map((r) => ({ day: r.day, kind: r.kind, count: r.count, amount: new Decimal(r.amount) }));
  }

  async frozenBill(accountId: number, month: string): Promise<StoredBill | null> {
    const row = await this.db.monthlyBill.findUnique({ where: { accountId_month: { accountId, month } } });
    if (!row) return null;
    const lines = (row.lines as unknown as LineJson[]).map((l) => ({ kind: l.kind, appId: l.app_id, apiKeyId: l.api_key_id, count: l.count, amount: new Decimal(l.amount) }));
    return { total: row.total, lines, frozenAt: row.frozenAt };
  }

  /** Stores the bill unless another reader froze it first; returns the stored one either way. */
  async freeze(accountId: number, month: string, total: Decimal, lines: BillLineRow[]): Promise<StoredBill> {
    const json: LineJson[] = lines.map((l) => ({ kind: l.kind, app_id: l.appId, api_key_id: l.apiKeyId, count: l.count, amount: l.amount.toFixed() }));
    await this.db.monthlyBill.createMany({ data: [{ accountId, month, total, lines: json as never }], skipDuplicates: true });
    return (await this.frozenBill(accountId, month))!;
  }
}
