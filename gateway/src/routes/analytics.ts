import { Router } from 'express';
import { searchAnalyticsJson, searchReportFields } from './search';
import { z } from 'zod';
import { AppError } from '@tollgate/kit';
import '../http/route-book';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { envelope } from './documents-schemas';
import { rpcFor } from '../http/request-id';
import { calendarDate } from '../http/instants';
import { decimalInt } from '../http/form-numbers';

const DAY_MS = 86_400_000;
const MAX_DAYS = { day: 366, hour: 31 } as const;
const date = calendarDate;
const int = decimalInt;

export const analyticsQuery = z
  .object({
    from: date.optional().openapi({ description: 'First day (UTC), inclusive; default 29 days before `to` (interval=day) or `to` itself (interval=hour)' }),
    to: date.optional().openapi({ description: 'Last day (UTC), inclusive; default today' }),
    interval: z.enum(['hour', 'day']).optional().openapi({ description: `Bucket size; default day. A range spans at most ${MAX_DAYS.day} days by day, ${MAX_DAYS.hour} by hour` }),
    user_id: int(1, 2_147_483_647).optional().openapi({ description: "Admins: only this account's requests. Others: their own id only (any other is a 403)" }),
    limit: int(1, 100).optional().openapi({ description: 'Length of top lists; default 10' }),
  })
  .superRefine((q, ctx) => {
    const to = q.to ? Date.parse(`${q.to}T00:00:00Z`) : Date.parse(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
    if (!q.from) return;
    const from = Date.parse(`${q.from}T00:00:00Z`);
    if (from > to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    else if ((to - from) / DAY_MS + 1 > MAX_DAYS[q.interval ?? 'day']) ctx.addIssue({ code: 'custom', path: ['from'], message: `the range may span at most ${MAX_DAYS[q.interval ?? 'day']} days with interval=${q.interval ?? 'day'}` });
  });

const head = { from: z.string(), to: z.string(), interval: z.enum(['hour', 'day']), user_id: z.number().int().nullable() };
const statusClass = z.enum(['1xx', '2xx', '3xx', '4xx', '5xx']);
const perf = { requests: z.number().int(), error_rate: z.number(), client_error_rate: z.number(), p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number() };
const categoryCount = z.object({ period: z.string(), category: z.string(), count: z.number().int() });

const usageSchema = z.object({
  ...head,
  total_requests: z.number().int(),
  by_group: z.record(z.string(), z.number().int()),
  by_status_class: z.record(z.string(), z.number().int()),
  series: z.array(z.object({ period: z.string(), group: z.string(), status_class: statusClass, count: z.number().int() })),
});
const performanceSchema = z.object({ ...head, groups: z.record(z.string(), z.object(perf)), series: z.array(z.object({ period: z.string(), group: z.string(), ...perf })) });
const usersSchema = z.object({
  ...head,
  series: z.array(z.object({ period: z.string(), active_users: z.number().int(), new_users: z.number().int() })),
  top_users: z.array(z.object({ user_id: z.number().int(), requests: z.number().int() })),
});
const contentSchema = z.object({
  ...head,
  total_views: z.number().int(),
  views: z.array(z.object({ period: z.string(), count: z.number().int() })),
  top_documents: z.array(z.object({ document_id: z.number().int(), views: z.number().int() })),
  documents_created: z.array(categoryCount),
  documents_updated: z.array(categoryCount),
  documents_deleted: z.array(categoryCount),
  totals: z.object({ created: z.number().int(), updated: z.number().int(), deleted: z.number().int() }),
});
const searchSchema = z.object({ ...head, ...searchReportFields });

const errors = {
  401: { description: 'Missing or unknown token' },
  403: { description: "Plain HTTP, or another account's user_id without admin" },
  422: { description: 'Invalid from/to/interval (bad date, from after to, range too long); data.errors lists the fields' },
};

const REPORTS = [
  { name: 'usage', schema: usageSchema, summary: 'API requests per interval, by endpoint group and status class' },
  { name: 'performance', schema: performanceSchema, summary: "Latency p50/p95/p99 and error rate per endpoint group per interval (the gateway's own measurements)" },
  { name: 'users', schema: usersSchema, summary: 'Active and new users per interval, top users by requests' },
  { name: 'content', schema: contentSchema, summary: 'Document views, top documents, documents created/updated/deleted per interval and category' },
] as const;

/**
 * `/api/v1/analytics/*`: reports over rollups kept by the docs service (usage, performance, users,
 * content) and the search service (search). Admins see everything (or one account with user_id);
 * everyone else sees their own. Decisions in docs/docs-api.md.
 */
export function analyticsRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { site, search } = deps.upstreams;
  const before = [requireUser(deps)];
  const tags = ['Analytics'];
  const accountFilter = (res: Parameters<typeof userOf>[0], userId: number | undefined): number => {
    const { actor } = userOf(res);
    if (userId !== undefined && userId !== actor.accountId && !actor.isAdmin) throw AppError.forbidden("only an admin may read other accounts' analytics");
    return actor.isAdmin ? (userId ?? 0) : actor.accountId;
  };

  for (const report of REPORTS) {
    deps.book.add(
      router,
      { method: 'get', path: `/api/v1/analytics/${report.name}`, summary: report.summary, tags, security: 'userToken', query: analyticsQuery, before, responses: { 200: { description: 'The report', schema: envelope(report.schema) }, ...errors } },
      async ({ query }, _req, res) => {
        const userId = accountFilter(res, query.user_id);
        const out = await site.analytics({ actor: userOf(res).actor, report: report.name, from: query.from ?? '', to: query.to ?? '', interval: query.interval ?? '', userId, limit: query.limit ?? 0 }, rpcFor(res));
        sendEnvelope(res, JSON.parse(out.reportJson || '{}'));
      },
    );
  }

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/analytics/search', summary: 'Searches per interval, top queries, zero-result queries (also at /api/v1/search/analytics for admins)', tags, security: 'userToken', query: analyticsQuery, before, responses: { 200: { description: 'The report', schema: envelope(searchSchema) }, ...errors } },
    async ({ query }, _req, res) => {
      const accountId = accountFilter(res, query.user_id);
      const interval = query.interval ?? 'day';
      const today = new Date().toISOString().slice(0, 10);
      const toDay = query.to ?? today;
      const fromDay = query.from ?? new Date(Date.parse(`${toDay}T00:00:00Z`) - (interval === 'day' ? 29 : 0) * DAY_MS).toISOString().slice(0, 10);
      const to = new Date(Date.parse(`${toDay}T00:00:00Z`) + DAY_MS).toISOString();
      const r = await search.analytics({ actor: userOf(res).actor, from: `${fromDay}T00:00:00.000Z`, to, interval, limit: query.limit ?? 0, accountId }, rpcFor(res));
      sendEnvelope(res, { ...searchAnalyticsJson(r), interval, user_id: accountId || null });
    },
  );
  return router;
}
