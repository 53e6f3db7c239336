import { AppError } from '@tollgate/kit';
import type { QueryKind } from '../analytics/analytics-repo';
import type { AnalyticsRecorder } from '../analytics/analytics-recorder';
import type { EngineHit, EngineQuery, SearchEngine } from '../engine/types';
import type { Logger } from '@tollgate/kit';

export const MAX_QUERY_CHARS = 200;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** Deepest result reachable by paging (offset + limit). */
export const MAX_WINDOW = 10_000;

export interface SearchDeps {
  engine: SearchEngine;
  recorder: Pick<AnalyticsRecorder, 'record'>;
  log: Logger;
}

export interface SearchPage {
  hits: EngineHit[];
  total: number;
  page: number;
  pageSize: number;
  tookMs: number;
}

/** Lower case, single spaces: how a query is counted in analytics. */
export function normalizeQuery(q: string): string {
  return q.trim().replace(/\s+/g, ' ').toLowerCase().slice(0, MAX_QUERY_CHARS);
}

export function checkQueryLength(q: string, loc: string[]): string {
  if (q.length > MAX_QUERY_CHARS) throw AppError.field(loc, `${loc[loc.length - 1]}: at most ${MAX_QUERY_CHARS} characters`);
  return q;
}

/** `part`: where the client sent the page (query string of a search, body of an advanced search), for the error's loc. */
export function paging(page: number | undefined, limit: number | undefined, part: 'query' | 'body'): { page: number; pageSize: number; offset: number } {
  const pageSize = Math.min(MAX_LIMIT, Math.max(1, limit || DEFAULT_LIMIT));
  const p = Math.max(1, page || 1);
  if ((p - 1) * pageSize + pageSize > MAX_WINDOW) throw AppError.field([part, 'page'], `page: results beyond the first ${MAX_WINDOW} cannot be paged to; refine the query`);
  return { page: p, pageSize, offset: (p - 1) * pageSize };
}

/** Runs the query on the engine and hands it to the analytics recorder (buffered, written in batches off the query's path). */
export async function runAndRecord(deps: SearchDeps, query: EngineQuery, record: { kind: QueryKind; accountId?: number }, page: number): Promise<SearchPage> {
  const started = process.hrtime.bigint();
  const result = await deps.engine.search(query);
  const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
  deps.recorder.record({ query: normalizeQuery(query.q), kind: record.kind, resultCount: result.total, latencyMs: tookMs, accountId: record.accountId, at: new Date() });
  return { hits: result.hits, total: result.total, page, pageSize: query.limit, tookMs: Math.round(tookMs) };
}
