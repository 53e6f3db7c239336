import { AppError, INSTANT_RANGE_TEXT, isSupportedDate, withinRange } from '@tollgate/kit';
import type { Actor } from '../domain/document';
import type { AnalyticsRepo, PerformanceCell, Range, RequestCell } from '../site/analytics-repo';
import { quantileMs } from '../site/latency-buckets';

export const ANALYTICS_REPORTS = ['usage', 'performance', 'users', 'content'] as const;
export type AnalyticsReportName = (typeof ANALYTICS_REPORTS)[number];

const DAY_MS = 86_400_000;
/** Longest range per interval: a year of days, a month of hours. */
export const MAX_DAYS = { day: 366, hour: 31 } as const;

export interface AnalyticsInput {
  report: string;
  from: string;
  to: string;
  interval: string;
  userId: number;
  limit: number;
}

function day(value: string, loc: string): Date {
  if (!isSupportedDate(value)) throw AppError.field(['query', loc], `${loc}: must be a date YYYY-MM-DD, a real calendar date ${INSTANT_RANGE_TEXT}`);
  return new Date(`${value}T00:00:00Z`);
}

/** [from 00:00, to+1 day 00:00) UTC, bounded; non-admins always get their own account. */
export function analyticsRange(actor: Actor, input: AnalyticsInput): { range: Range; interval: 'hour' | 'day' } {
  const interval = input.interval || 'day';
  if (interval !== 'hour' && interval !== 'day') throw AppError.field(['query', 'interval'], 'interval: must be hour or day');
  const today = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
  const to = input.to ? day(input.to, 'to') : today;
  const from = input.from ? day(input.from, 'from') : new Date(to.getTime() - (interval === 'day' ? 29 : 0) * DAY_MS);
  if (from > to) throw AppError.field(['query', 'from'], 'from: must not be after to');
  const days = (to.getTime() - from.getTime()) / DAY_MS + 1;
  if (days > MAX_DAYS[interval]) throw AppError.field(['query', 'from'], `from: the range may span at most ${MAX_DAYS[interval]} days with interval=${interval}`);
  if (input.userId > 0 && input.userId !== actor.accountId && !actor.isAdmin) throw AppError.forbidden("only an admin may read other accounts' analytics");
  const accountId = actor.isAdmin ? Math.max(0, input.userId) : actor.accountId;
  return { range: { kind: interval === 'hour' ? 'h' : 'd', accountId, from, to: withinRange(to.getTime() + DAY_MS) }, interval };
}

const iso = (d: Date) => d.toISOString();

/** ISO strings of epoch-ms periods, each made once per report (a report repeats each period per group). */
function isoOfPeriods(): (ms: number) => string {
  const seen = new Map<number, string>();
  return (ms) => {
    let s = seen.get(ms);
    if (s === undefined) seen.set(ms, (s = new Date(ms).toISOString()));
    return s;
  };
}
const statusKey = (c: number) => `${c}xx`;

function usage(cells: RequestCell[]) {
  const byGroup: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let total = 0;
  const periodIso = isoOfPeriods();
  const series = cells.map((c) => {
    byGroup[c.group] = (byGroup[c.group] ?? 0) + c.count;
    byStatus[statusKey(c.statusClass)] = (byStatus[statusKey(c.statusClass)] ?? 0) + c.count;
    total += c.count;
    return { period: periodIso(c.periodMs), group: c.group, status_class: statusKey(c.statusClass), count: c.count };
  });
  return { total_requests: total, by_group: byGroup, by_status_class: byStatus, series };
}

interface Acc {
  requests: number;
  serverErrors: number;
  clientErrors: number;
  hist: number[];
}

function summarize(a: Acc) {
  return {
    requests: a.requests,
    error_rate: a.requests ? Math.round((a.serverErrors / a.requests) * 10_000) / 10_000 : 0,
    client_error_rate: a.requests ? Math.round((a.clientErrors / a.requests) * 10_000) / 10_000 : 0,
    p50_ms: quantileMs(a.hist, a.requests, 0.5),
    p95_ms: quantileMs(a.hist, a.requests, 0.95),
    p99_ms: quantileMs(a.hist, a.requests, 0.99),
  };
}

function performance(cells: PerformanceCell[]) {
  const perGroup = new Map<string, Acc>();
  const periodIso = isoOfPeriods();
  const series = cells.map((c) => {
    let g = perGroup.get(c.group);
    if (!g) perGroup.set(c.group, (g = { requests: 0, serverErrors: 0, clientErrors: 0, hist: [] }));
    g.requests += c.requests;
    g.serverErrors += c.serverErrors;
    g.clientErrors += c.clientErrors;
    for (let b = 0; b < c.latency.length; b++) g.hist[b] = (g.hist[b] ?? 0) + c.latency[b];
    return { period: periodIso(c.periodMs), group: c.group, ...summarize({ requests: c.requests, serverErrors: c.serverErrors, clientErrors: c.clientErrors, hist: c.latency }) };
  });
  return { groups: Object.fromEntries([...perGroup].map(([g, a]) => [g, summarize(a)])), series };
}

/** One report over the rollups: usage, performance, users or content. */
export async function siteAnalytics(repo: AnalyticsRepo, actor: Actor, input: AnalyticsInput): Promise<Record<string, unknown>> {
  if (!(ANALYTICS_REPORTS as readonly string[]).includes(input.report)) throw AppError.notFound(`no analytics report ${input.report}`);
  const { range, interval } = analyticsRange(actor, input);
  const limit = Math.min(100, Math.max(1, input.limit || 10));
  const head = { from: iso(range.from), to: iso(range.to), interval, user_id: range.accountId || null };
  switch (input.report as AnalyticsReportName) {
    case 'usage':
      return { ...head, ...usage(await repo.requestCells(range)) };
    case 'performance':
      return { ...head, ...performance(await repo.performanceCells(range)) };
    case 'users': {
      const [active, created, top] = await Promise.all([
        repo.activeAccounts(range),
        repo.perPeriod('account.created', { ...range, accountId: 0 }, false),
        repo.top('request', range, limit, true),
      ]);
      const newUsers = new Map<number, number>();
      for (const c of created) newUsers.set(c.period.getTime(), (newUsers.get(c.period.getTime()) ?? 0) + c.count);
      const periods = [...new Set([...active.map((a) => a.period.getTime()), ...newUsers.keys()])].sort((a, b) => a - b);
      const activeBy = new Map(active.map((a) => [a.period.getTime(), a.count]));
      return {
        ...head,
        series: periods.map((p) => ({ period: iso(new Date(p)), active_users: activeBy.get(p) ?? 0, new_users: range.accountId ? 0 : (newUsers.get(p) ?? 0) })),
        top_users: top.map((t) => ({ user_id: Number(t.key), requests: t.count })),
      };
    }
    case 'content': {
      const [views, top, created, updated, deleted] = await Promise.all([
        repo.perPeriod('document.view', range, false),
        repo.top('document.view', range, limit, false),
        repo.perPeriod('document.created', range),
        repo.perPeriod('document.updated', range),
        repo.perPeriod('document.deleted', range),
      ]);
      const viewsPer = new Map<number, number>();
      for (const v of views) viewsPer.set(v.period.getTime(), (viewsPer.get(v.period.getTime()) ?? 0) + v.count);
      const changes = (rows: typeof created) => rows.map((r) => ({ period: iso(r.period), category: r.dim, count: r.count }));
      const total = (rows: typeof created) => rows.reduce((s, r) => s + r.count, 0);
      return {
        ...head,
        total_views: total(views),
        views: [...viewsPer].map(([p, count]) => ({ period: iso(new Date(p)), count })),
        top_documents: top.map((t) => ({ document_id: Number(t.key), views: t.count })),
        documents_created: changes(created),
        documents_updated: changes(updated),
        documents_deleted: changes(deleted),
        totals: { created: total(created), updated: total(updated), deleted: total(deleted) },
      };
    }
  }
}
