import { AppError } from '@tollgate/kit';
import { SORTS, type SortKey } from '../engine/types';
import { checkQueryLength, paging, runAndRecord, type SearchDeps, type SearchPage } from './common';

export interface AdvancedSearchInput {
  query: string;
  categories: string[];
  tags: string[];
  dateRange?: { start: string; end: string };
  sort: string;
  limit?: number;
  page?: number;
  accountId?: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` → UTC midnight in epoch ms; rejects impossible dates such as 2025-02-30. */
export function parseDay(value: string, loc: string[]): number {
  const m = DATE.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw AppError.field(loc, `${loc.join('.')}: must be a date YYYY-MM-DD`);
  return ms;
}

/** Search with filters (any of the categories, any of the tags, updated within the date range, inclusive) and a sort. */
export function advancedSearch(deps: SearchDeps, input: AdvancedSearchInput): Promise<SearchPage> {
  const q = checkQueryLength(input.query.trim(), ['body', 'query']);
  const sort = (input.sort || 'relevance') as SortKey;
  if (!SORTS.includes(sort)) throw AppError.field(['body', 'sort'], `sort: must be one of ${SORTS.join(', ')}`);
  let updatedFrom: number | undefined;
  let updatedTo: number | undefined;
  if (input.dateRange?.start) updatedFrom = parseDay(input.dateRange.start, ['body', 'filters', 'dateRange', 'start']);
  if (input.dateRange?.end) updatedTo = parseDay(input.dateRange.end, ['body', 'filters', 'dateRange', 'end']) + DAY_MS;
  if (updatedFrom !== undefined && updatedTo !== undefined && updatedFrom >= updatedTo) {
    throw AppError.field(['body', 'filters', 'dateRange'], 'filters.dateRange: start must not be after end');
  }
  const { page, pageSize, offset } = paging(input.page, input.limit, 'body');
  const clean = (list: string[]) => [...new Set(list.map((s) => s.trim()).filter(Boolean))];
  return runAndRecord(
    deps,
    { q, categories: clean(input.categories), tags: clean(input.tags), updatedFrom, updatedTo, sort, offset, limit: pageSize },
    { kind: 'advanced', accountId: input.accountId },
    page,
  );
}
