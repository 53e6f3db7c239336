import type { AnalyticsResponse, Hit, SearchResponse, Suggestion as SuggestionMessage } from '@tollgate/protos/search';
import type { EngineHit, Suggestion } from './engine/types';
import type { SearchPage } from './usecases/common';
import type { AnalyticsReport } from './usecases/analytics-report';
import type { QueryCountRow } from './analytics/analytics-repo';

export function toHitMessage(h: EngineHit): Hit {
  return {
    id: h.id,
    title: h.title,
    category: h.category,
    tags: h.tags,
    snippet: h.snippet,
    score: h.score,
    updatedAt: new Date(h.updatedAt).toISOString(),
    slug: h.slug,
    titleHighlighted: h.titleHighlighted,
    authorAccountId: h.authorAccountId,
    createdAt: new Date(h.createdAt).toISOString(),
  };
}

export function toSearchResponse(p: SearchPage): SearchResponse {
  return { hits: p.hits.map(toHitMessage), total: p.total, tookMs: p.tookMs, page: { page: p.page, pageSize: p.pageSize, total: p.total } };
}

export function toSuggestionMessage(s: Suggestion): SuggestionMessage {
  return { text: s.text, kind: s.kind, documentId: s.documentId };
}

const queryCount = (r: QueryCountRow) => ({ query: r.query, count: r.count, avgResults: r.avgResults, lastAt: new Date(r.lastAt).toISOString() });

export function toAnalyticsResponse(r: AnalyticsReport): AnalyticsResponse {
  return {
    topQueries: r.topQueries.map(queryCount),
    zeroResultQueries: r.zeroResultQueries.map(queryCount),
    volume: r.volume.map((v) => ({ period: new Date(v.period).toISOString(), count: v.count, zeroResults: v.zeroResults })),
    total: r.total,
    avgLatencyMs: r.avgLatencyMs,
    p95LatencyMs: r.p95LatencyMs,
    zeroResultTotal: r.zeroResultTotal,
    from: r.from.toISOString(),
    to: r.to.toISOString(),
    interval: r.interval,
  };
}
