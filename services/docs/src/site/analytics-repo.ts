import type { Pool } from 'pg';
import type { PeriodKind } from './rollups';

export interface Range {
  kind: PeriodKind;
  /** 0 = every account together. */
  accountId: number;
  from: Date;
  to: Date;
}

/**
 * request_rollups keeps, per period, account and endpoint group, one row per status class with
 * its count, and one row for all statuses together (status_class 0) with the count and the
 * latency histogram: a performance report reads one histogram per point.
 */
export const ALL_STATUSES = 0;

export interface RequestCell {
  periodMs: number;
  group: string;
  statusClass: number;
  count: number;
}

export interface PerformanceCell {
  periodMs: number;
  group: string;
  requests: number;
  serverErrors: number;
  clientErrors: number;
  /** latency[i]: requests in latency bucket i. */
  latency: number[];
}

export interface PeriodCount {
  period: Date;
  dim: string;
  count: number;
}

/** Instants compared with the `timestamp` (UTC) columns, and read back as UTC. */
const FROM = `($3::timestamptz AT TIME ZONE 'UTC')`;
const TO = `($4::timestamptz AT TIME ZONE 'UTC')`;
const PERIOD = `(period_start AT TIME ZONE 'UTC') AS period`;
/** The period as epoch ms (a float8 is parsed far more cheaply than a timestamp). */
const PERIOD_MS = `(extract(epoch FROM period_start) * 1000)::float8 AS period_ms`;

/**
 * Reads of the rollups only (never the raw measurements), with plain `pg`: a 90-day report returns
 * thousands of rows, and Prisma's raw-query decoding of those cost several times the query itself.
 */
export class AnalyticsRepo {
  constructor(private readonly pool: Pool) {}

  /** Requests per period, group and status class of one account (0 = everyone) over the range. */
  async requestCells(r: Range): Promise<RequestCell[]> {
    const { rows } = await this.pool.query<{ period_ms: number; group: string; status_class: number; count: number }>(
      `SELECT ${PERIOD_MS}, "group", status_class, count FROM request_rollups
       WHERE period_kind = $1 AND account_id = $2 AND period_start >= ${FROM} AND period_start < ${TO} AND status_class <> ${ALL_STATUSES}
       ORDER BY period_start`,
      [r.kind, r.accountId, r.from.toISOString(), r.to.toISOString()],
    );
    return rows.map((x) => ({ periodMs: x.period_ms, group: x.group, statusClass: x.status_class, count: x.count }));
  }

  /** Per period and group: requests, 5xx and 4xx counts and the latency histogram, one row each. */
  async performanceCells(r: Range): Promise<PerformanceCell[]> {
    // the histogram as 'n,n,n' text: splitting it is several times cheaper than pg's generic array parser
    const { rows } = await this.pool.query<{ period_ms: number; group: string; requests: number; server_errors: number; client_errors: number; latency: string | null }>(
      `SELECT ${PERIOD_MS}, "group",
              coalesce(sum(count) FILTER (WHERE status_class = ${ALL_STATUSES}), 0)::int AS requests,
              coalesce(sum(count) FILTER (WHERE status_class = 5), 0)::int AS server_errors,
              coalesce(sum(count) FILTER (WHERE status_class = 4), 0)::int AS client_errors,
              max(array_to_string(latency, ',')) FILTER (WHERE status_class = ${ALL_STATUSES}) AS latency
       FROM request_rollups
       WHERE period_kind = $1 AND account_id = $2 AND period_start >= ${FROM} AND period_start < ${TO}
       GROUP BY period_start, "group" ORDER BY period_start, "group"`,
      [r.kind, r.accountId, r.from.toISOString(), r.to.toISOString()],
    );
    return rows.map((x) => ({
      periodMs: x.period_ms,
      group: x.group,
      requests: x.requests,
      serverErrors: x.server_errors,
      clientErrors: x.client_errors,
      latency: x.latency ? x.latency.split(',').map(Number) : [],
    }));
  }

  /** Sum of a metric per period and dim (or per period only, dim '', with byDim false), for one account or everyone. */
  async perPeriod(metric: string, r: Range, byDim = true): Promise<PeriodCount[]> {
    const { rows } = await this.pool.query<{ period: Date; dim: string; count: string }>(
      `SELECT ${PERIOD}, ${byDim ? 'dim' : "'' AS dim"}, sum(count) AS count FROM event_rollups
       WHERE metric = $5 AND period_kind = $1 AND account_id = $2 AND period_start >= ${FROM} AND period_start < ${TO}
       GROUP BY period_start${byDim ? ', dim' : ''} ORDER BY period_start`,
      [r.kind, r.accountId, r.from.toISOString(), r.to.toISOString(), metric],
    );
    return rows.map((x) => ({ period: x.period, dim: x.dim, count: Number(x.count) }));
  }

  /** Accounts with at least one request, per period (from the per-account rows). */
  async activeAccounts(r: Range): Promise<Array<{ period: Date; count: number }>> {
    const { rows } = await this.pool.query<{ period: Date; count: string }>(
      `SELECT ${PERIOD}, count(*) AS count FROM event_rollups
       WHERE metric = 'request' AND period_kind = $1 AND period_start >= ${FROM} AND period_start < ${TO}
         AND account_id <> 0 AND ($2 = 0 OR account_id = $2)
       GROUP BY period_start ORDER BY period_start`,
      [r.kind, r.accountId, r.from.toISOString(), r.to.toISOString()],
    );
    return rows.map((x) => ({ period: x.period, count: Number(x.count) }));
  }

  /** The dims (or accounts, with byAccount) with the highest sums over the range (from the daily rows). */
  async top(metric: string, r: Range, limit: number, byAccount: boolean): Promise<Array<{ key: string; count: number }>> {
    const sql = byAccount
      ? `SELECT account_id::text AS key, sum(count) AS count FROM event_rollups
         WHERE metric = $5 AND period_kind = 'd' AND period_start >= ${FROM} AND period_start < ${TO}
           AND account_id <> 0 AND ($2 = 0 OR account_id = $2) AND $1 = $1
         GROUP BY account_id ORDER BY 2 DESC, 1 LIMIT $6`
      : `SELECT dim AS key, sum(count) AS count FROM event_rollups
         WHERE metric = $5 AND period_kind = 'd' AND account_id = $2 AND period_start >= ${FROM} AND period_start < ${TO} AND $1 = $1
         GROUP BY dim ORDER BY 2 DESC, 1 LIMIT $6`;
    const { rows } = await this.pool.query<{ key: string; count: string }>(sql, [r.kind, r.accountId, r.from.toISOString(), r.to.toISOString(), metric, limit]);
    return rows.map((x) => ({ key: x.key, count: Number(x.count) }));
  }
}
