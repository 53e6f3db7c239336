import { Router } from 'express';
import { z } from 'zod';
import '../http/route-book';
import type { AnalyticsResponse, Hit, SearchResponse } from '@tollgate/protos/search';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { envelope } from './documents-schemas';
import { decimalInt } from '../http/form-numbers';
import { rpcFor } from '../http/request-id';

const SORTS = ['relevance', 'updated_desc', 'updated_asc', 'created_desc', 'created_asc', 'title_asc'] as const;
const MAX_Q = 200;
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD');
const list = z.array(z.string().max(64)).max(50);
const int = (min: number, max: number) => decimalInt(min, max);

const searchQuery = z.object({
  q: z.string().trim().min(1, 'a search text is required').max(MAX_Q),
  page: int(1, 1000).optional(),
  limit: int(1, MAX_LIMIT).optional().openapi({ description: `Default ${DEFAULT_LIMIT}` }),
});

const suggestQuery = z.object({
  q: z.string().max(MAX_Q).openapi({ description: 'What has been typed so far; suggestions start from the first character, an empty or blank q gives none' }),
  limit: int(1, 20).optional().openapi({ description: 'Default 8' }),
});

const advancedBody = z
  .object({
    query: z.string().max(MAX_Q).optional().openapi({ description: 'Empty or absent: every document passing the filters' }),
    filters: z
      .object({
        category: list.optional().openapi({ description: 'Any of these categories' }),
        tags: list.optional().openapi({ description: 'Any of these tags' }),
        dateRange: z.object({ start: day.optional(), end: day.optional() }).strict().optional().openapi({ description: 'updated_at within [start, end], both inclusive, UTC' }),
      })
      .strict()
      .optional(),
    sort: z.enum(SORTS).optional().openapi({ description: 'Default relevance' }),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    page: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

const analyticsQuery = z.object({
  from: z.string().max(40).optional().openapi({ description: 'YYYY-MM-DD or ISO 8601 instant, inclusive; default 7 days before `to`' }),
  to: z.string().max(40).optional().openapi({ description: 'Exclusive; default now' }),
  interval: z.enum(['hour', 'day']).optional().openapi({ description: 'Volume bucket; default day' }),
  limit: int(1, 100).optional().openapi({ description: 'Top lists length; default 10' }),
});

const hitSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  title: z.string(),
  title_highlighted: z.string(),
  snippet: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  score: z.number(),
  author_id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
const resultsSchema = z.object({ query: z.string(), hits: z.array(hitSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int(), total_pages: z.number().int(), took_ms: z.number().int() });
const queryCountSchema = z.object({ query: z.string(), count: z.number().int(), avg_results: z.number(), last_at: z.string() });
/** The search analytics report's fields, served here (admins) and at /api/v1/analytics/search. */
/** The search report's JSON, for the admin route here and for /api/v1/analytics/search. */
export function searchAnalyticsJson(r: AnalyticsResponse) {
  const counts = (list: AnalyticsResponse['topQueries']) => list.map((q) => ({ query: q.query, count: q.count, avg_results: q.avgResults, last_at: q.lastAt }));
  return {
    from: r.from,
    to: r.to,
    interval: r.interval,
    total_queries: r.total,
    zero_result_total: r.zeroResultTotal,
    avg_latency_ms: r.avgLatencyMs,
    p95_latency_ms: r.p95LatencyMs,
    top_queries: counts(r.topQueries),
    zero_result_queries: counts(r.zeroResultQueries),
    volume: r.volume.map((v) => ({ period: v.period, count: v.count, zero_results: v.zeroResults })),
  };
}

export const searchReportFields = {
  total_queries: z.number().int(),
  zero_result_total: z.number().int(),
  avg_latency_ms: z.number(),
  p95_latency_ms: z.number(),
  top_queries: z.array(queryCountSchema),
  zero_result_queries: z.array(queryCountSchema),
  volume: z.array(z.object({ period: z.string(), count: z.number().int(), zero_results: z.number().int() })),
};
const analyticsSchema = z.object({ from: z.string(), to: z.string(), interval: z.string(), ...searchReportFields });

const hitJson = (h: Hit) => ({ id: h.id, slug: h.slug, title: h.title, title_highlighted: h.titleHighlighted, snippet: h.snippet, category: h.category, tags: h.tags, score: h.score, author_id: h.authorAccountId, created_at: h.createdAt, updated_at: h.updatedAt });

function resultsJson(query: string, r: SearchResponse) {
  const limit = r.page?.pageSize ?? DEFAULT_LIMIT;
  return { query, hits: r.hits.map(hitJson), total: r.total, page: r.page?.page ?? 1, limit, total_pages: Math.ceil(r.total / limit), took_ms: r.tookMs };
}

const errors = { 401: { description: 'Missing or unknown token' }, 403: { description: 'Missing permission, or plain HTTP' }, 422: { description: 'Invalid input; data.errors lists the fields' } };

/**
 * `/api/v1/search`: full-text, suggest, advanced search over published documents (docs_read),
 * analytics and rebuild (admin). Decisions in docs/search.md.
 */
export function searchRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { search } = deps.upstreams;
  const read = [requireUser(deps, { permission: 'docs_read' })];
  const admin = [requireUser(deps, { permission: 'admin' })];
  const tags = ['Search'];

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/search', summary: 'Full-text search: typo-tolerant, prefix on the last word, highlighted snippets', tags, security: 'userToken', query: searchQuery, before: read, responses: { 200: { description: 'One page of hits', schema: envelope(resultsSchema) }, ...errors } },
    async ({ query }, _req, res) => {
      const out = await search.search({ actor: userOf(res).actor, q: query.q, page: { page: query.page ?? 1, pageSize: query.limit ?? DEFAULT_LIMIT } }, rpcFor(res));
      sendEnvelope(res, resultsJson(query.q, out));
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/search/suggest', summary: 'As-you-type suggestions: matching titles, then completed terms', tags, security: 'userToken', query: suggestQuery, before: read, responses: { 200: { description: 'Suggestions', schema: envelope(z.object({ query: z.string(), suggestions: z.array(z.object({ text: z.string(), type: z.enum(['title', 'term']), id: z.number().int().optional() })) })) }, ...errors } },
    async ({ query }, _req, res) => {
      const out = await search.suggest({ actor: userOf(res).actor, q: query.q, limit: query.limit ?? 0 }, rpcFor(res));
      const suggestions = out.suggestions.map((s) => (s.kind === 'title' ? { text: s.text, type: 'title', id: s.documentId } : { text: s.text, type: 'term' }));
      sendEnvelope(res, { query: query.q, suggestions });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/search/advanced', summary: 'Search with category, tag and date filters and a sort', tags, security: 'userToken', body: advancedBody, before: read, responses: { 200: { description: 'One page of hits', schema: envelope(resultsSchema) }, ...errors } },
    async ({ body }, _req, res) => {
      const out = await search.advancedSearch({
        actor: userOf(res).actor,
        query: body.query ?? '',
        categories: body.filters?.category ?? [],
        tags: body.filters?.tags ?? [],
        dateRange: body.filters?.dateRange ? { start: body.filters.dateRange.start ?? '', end: body.filters.dateRange.end ?? '' } : undefined,
        sort: body.sort ?? 'relevance',
        limit: body.limit ?? DEFAULT_LIMIT,
        page: body.page ?? 1,
      }, rpcFor(res));
      sendEnvelope(res, resultsJson(body.query ?? '', out));
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/search/analytics', summary: 'Search analytics (admin): top queries, zero-result queries, volume over time', tags, security: 'admin', query: analyticsQuery, before: admin, responses: { 200: { description: 'The report', schema: envelope(analyticsSchema) }, ...errors } },
    async ({ query }, _req, res) => {
      const r = await search.analytics({ actor: userOf(res).actor, from: query.from ?? '', to: query.to ?? '', interval: query.interval ?? '', limit: query.limit ?? 0, accountId: 0 }, rpcFor(res));
      sendEnvelope(res, searchAnalyticsJson(r));
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/search/rebuild', summary: 'Rebuild the whole index from the docs service (admin)', tags, security: 'admin', before: admin, responses: { 200: { description: 'Rebuilt', schema: envelope(z.object({ indexed: z.number().int(), took_ms: z.number().int() })) }, ...errors } },
    async (_input, _req, res) => {
      const out = await search.rebuild({}, { ...rpcFor(res), timeoutMs: 600_000 });
      sendEnvelope(res, { indexed: out.indexed, took_ms: out.tookMs }, { message: 'index rebuilt' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/search/status', summary: 'Which engine serves and how many documents it holds (admin)', tags, security: 'admin', before: admin, responses: { 200: { description: 'Status', schema: envelope(z.object({ engine: z.string(), documents: z.number().int(), ready: z.boolean() })) }, ...errors } },
    async (_input, _req, res) => {
      sendEnvelope(res, await search.status({}, rpcFor(res)));
    },
  );
  return router;
}
