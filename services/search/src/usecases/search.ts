import { AppError } from '@tollgate/kit';
import { checkQueryLength, paging, runAndRecord, type SearchDeps, type SearchPage } from './common';

/** Full-text search over published documents: typo-tolerant, prefix on the last word, highlighted. */
export function searchDocuments(deps: SearchDeps, input: { q: string; page?: number; pageSize?: number; accountId?: number }): Promise<SearchPage> {
  const q = checkQueryLength(input.q.trim(), ['query', 'q']);
  if (!q) throw AppError.field(['query', 'q'], 'q: a search text is required');
  const { page, pageSize, offset } = paging(input.page, input.pageSize, 'query');
  return runAndRecord(deps, { q, categories: [], tags: [], sort: 'relevance', offset, limit: pageSize }, { kind: 'search', accountId: input.accountId }, page);
}
