import { AppError } from '@tollgate/kit';
import type { AnalyticsRepo, Interval, QueryCountRow, Totals, VolumeRow } from '../analytics/analytics-repo';

export interface AnalyticsReport extends Totals {
  from: Date;
  to: Date;
  interval: Interval;
  topQueries: QueryCountRow[];
  zeroResultQueries: QueryCountRow[];
  volume: VolumeRow[];
}

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 7;
export const MAX_TOP = 100;

function instant(value: string, loc: string): Date | undefined {
  if (!value) return undefined;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) throw AppError.field(['query', loc], `${loc}: must be a date (YYYY-MM-DD) or an ISO 8601 instant`);
  return d;
}

/** Top queries, zero-result queries and volume per hour or day over [from, to) (default: the last 7 days). */
export async function analyticsReport(repo: AnalyticsRepo, input: { from: string; to: string; limit?: number; interval: string; accountId?: number }): Promise<AnalyticsReport> {
  const to = instant(input.to, 'to') ?? new Date();
  const from = instant(input.from, 'from') ?? new Date(to.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
  if (from >= to) throw AppError.field(['query', 'from'], 'from: must be before to');
  const interval = (input.interval || 'day') as Interval;
  if (interval !== 'day' && interval !== 'hour') throw AppError.field(['query', 'interval'], 'interval: must be hour or day');
  const limit = Math.min(MAX_TOP, Math.max(1, input.limit || 10));
  const account = input.accountId ?? 0;
  const [topQueries, zeroResultQueries, volume, totals] = await Promise.all([
    repo.topQueries(from, to, limit, false, account),
    repo.topQueries(from, to, limit, true, account),
    repo.volume(from, to, interval, account),
    repo.totals(from, to, account),
  ]);
  return { from, to, interval, topQueries, zeroResultQueries, volume, ...totals };
}
