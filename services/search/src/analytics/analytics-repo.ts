import type { SearchDb } from '../db';

export type QueryKind = 'search' | 'advanced';

export interface QueryRecord {
  query: string;
  kind: QueryKind;
  resultCount: number;
  latencyMs: number;
  accountId?: number;
  /** When the search ran (records are written later, in batches). */
  at?: Date;
}

export interface QueryCountRow {
  query: string;
  count: number;
  avgResults: number;
  lastAt: Date;
}

export interface VolumeRow {
  period: Date;
  count: number;
  zeroResults: number;
}

export interface Totals {
  total: number;
  avgLatencyMs: number;
  p95LatencyMs: number;
  zeroResultTotal: number;
}

export type Interval = 'hour' | 'day';

/** Every search the service answered: what was asked, how many results, how long it took. */
export class AnalyticsRepo {
  constructor(private readonly db: SearchDb) {}

  async record(r: QueryRecord): Promise<void> {
    await this.db.searchQuery.create({
      data: { query: r.query, kind: r.kind, resultCount: r.resultCount, latencyMs: Math.round(r.latencyMs), accountId: r.accountId || null },
    });
  }

  /**
   * Many records in one INSERT of six array parameters (a Prisma createMany of a few hundred rows
   * cost more CPU than the searches it recorded).
   */
  async recordMany(rs: QueryRecord[]): Promise<void> {
    if (rs.length === 0) return;
    await this.db.$executeRaw`
      INSERT INTO search_queries (query, kind, result_count, latency_ms, account_id, created_at)
      SELECT q, k, n, l, a, t AT TIME ZONE 'UTC'
      FROM unnest(${rs.map((r) => r.query)}::text[], ${rs.map((r) => r.kind)}::text[], ${rs.map((r) => r.resultCount)}::int[],
                  ${rs.map((r) => Math.round(r.latencyMs))}::int[], ${rs.map((r) => r.accountId || null)}::int[],
                  ${rs.map((r) => (r.at ?? new Date()).toISOString())}::timestamptz[]) AS x(q, k, n, l, a, t)`;
  }

  topQueries(from: Date, to: Date, limit: number, zeroOnly: boolean, accountId = 0): Promise<QueryCountRow[]> {
    return this.db.$queryRaw<QueryCountRow[]>`
      SELECT query, count(*)::int AS count, avg(result_count)::float8 AS "avgResults", max(created_at) AS "lastAt"
      FROM search_queries
      WHERE created_at >= ${from} AND created_at < ${to} AND query <> ''
        AND (${!zeroOnly} OR result_count = 0) AND (${accountId}::int = 0 OR account_id = ${accountId}::int)
      GROUP BY query
      ORDER BY count(*) DESC, max(created_at) DESC
      LIMIT ${limit}`;
  }

  volume(from: Date, to: Date, interval: Interval, accountId = 0): Promise<VolumeRow[]> {
    return this.db.$queryRaw<VolumeRow[]>`
      SELECT date_trunc(${interval}, created_at) AS period, count(*)::int AS count,
             (count(*) FILTER (WHERE result_count = 0))::int AS "zeroResults"
      FROM search_queries
      WHERE created_at >= ${from} AND created_at < ${to} AND (${accountId}::int = 0 OR account_id = ${accountId}::int)
      GROUP BY 1 ORDER BY 1`;
  }

  async totals(from: Date, to: Date, accountId = 0): Promise<Totals> {
    const [row] = await this.db.$queryRaw<Totals[]>`
      SELECT count(*)::int AS total,
             coalesce(avg(latency_ms), 0)::float8 AS "avgLatencyMs",
             coalesce(percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms), 0)::float8 AS "p95LatencyMs",
             (count(*) FILTER (WHERE result_count = 0))::int AS "zeroResultTotal"
      FROM search_queries
      WHERE created_at >= ${from} AND created_at < ${to} AND (${accountId}::int = 0 OR account_id = ${accountId}::int)`;
    return row;
  }
}
