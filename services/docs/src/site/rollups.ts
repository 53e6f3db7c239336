import type { Prisma } from '../generated/prisma/client';

type Sql = Pick<Prisma.TransactionClient, '$executeRaw'>;

export type PeriodKind = 'h' | 'd';
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The hour and the UTC day an instant falls in. */
export function periodsOf(atMs: number): Array<{ kind: PeriodKind; start: number }> {
  return [
    { kind: 'h', start: atMs - (atMs % HOUR_MS) },
    { kind: 'd', start: atMs - (atMs % DAY_MS) },
  ];
}

/** A counted event: added to its hour and day, for its account and for everyone (account 0). */
export interface EventCount {
  metric: string;
  accountId: number;
  atMs: number;
  dim: string;
  count: number;
}

/** Adds the counts to event_rollups in one statement (summed in memory first, so each key is written once). */
export async function addEventCounts(sql: Sql, events: EventCount[]): Promise<void> {
  const sums = new Map<string, { metric: string; kind: PeriodKind; account: number; start: number; dim: string; count: number }>();
  for (const e of events) {
    for (const p of periodsOf(e.atMs)) {
      for (const account of e.accountId > 0 ? [0, e.accountId] : [0]) {
        const key = `${e.metric}|${p.kind}|${account}|${p.start}|${e.dim}`;
        const row = sums.get(key) ?? { metric: e.metric, kind: p.kind, account, start: p.start, dim: e.dim, count: 0 };
        row.count += e.count;
        sums.set(key, row);
      }
    }
  }
  if (sums.size === 0) return;
  const rows = [...sums.values()];
  await sql.$executeRaw`
    INSERT INTO event_rollups (metric, period_kind, account_id, period_start, dim, count)
    SELECT m, k, a, s AT TIME ZONE 'UTC', d, n
    FROM unnest(${rows.map((r) => r.metric)}::text[], ${rows.map((r) => r.kind)}::text[], ${rows.map((r) => r.account)}::int[],
                ${rows.map((r) => new Date(r.start).toISOString())}::timestamptz[], ${rows.map((r) => r.dim)}::text[], ${rows.map((r) => r.count)}::int[]) AS x(m, k, a, s, d, n)
    ON CONFLICT (metric, period_kind, account_id, period_start, dim) DO UPDATE SET count = event_rollups.count + excluded.count`;
}
