import { RecentValues } from './recent-values';

/** How old a list's estimated total may get before the estimate is asked again. */
export const LIST_ESTIMATE_MAX_AGE_MS = 2_000;
const MAX_FILTERS = 1_000;

export interface ListEstimateOptions {
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * A long list's total above its exact cap: the planner's estimate for the list's filter, kept
 * per filter and asked again (in the background) once older than `maxAgeMs`. So page one of a
 * long list runs the statements of a short one, and the total follows the table within seconds.
 * Filters are told apart by their JSON (dates as ISO strings).
 */
export class ListEstimates<F> {
  private readonly filters = new Map<string, F>();
  private readonly values: RecentValues<string, number>;

  constructor(estimate: (filter: F) => Promise<number>, options: ListEstimateOptions = {}) {
    this.values = new RecentValues((key: string) => estimate(this.filters.get(key)!), { maxAgeMs: options.maxAgeMs ?? LIST_ESTIMATE_MAX_AGE_MS, maxKeys: MAX_FILTERS, now: options.now });
  }

  async of(filter: F): Promise<number> {
    const key = JSON.stringify(filter);
    if (!this.filters.has(key) && this.filters.size >= MAX_FILTERS) this.filters.clear();
    this.filters.set(key, filter);
    return this.values.recent(key);
  }
}

export interface ListPage {
  /** Matching rows counted, at most `cap + 1`. */
  counted: number;
  cap: number;
  /** Rows before this page, and the page's size and rows. */
  skip: number;
  pageSize: number;
  rowsOnPage: number;
  /** The planner's estimate, asked only above the cap. */
  estimate: () => Promise<number>;
}

/**
 * A list's total: exact up to `cap`; above it the estimate, kept within what the page proves. A page
 * with rows shows at least `skip + rows` exist (exactly that many when it is short: the last page);
 * an empty page beyond the end proves at most `skip` do, whatever page was asked for.
 */
export async function listTotal(p: ListPage): Promise<number> {
  if (p.counted <= p.cap) return p.counted;
  const seen = p.skip + p.rowsOnPage;
  if (p.rowsOnPage > 0 && p.rowsOnPage < p.pageSize) return Math.max(p.cap + 1, seen);
  const estimate = await p.estimate();
  if (p.rowsOnPage === 0) return Math.max(p.cap + 1, Math.min(estimate, p.skip));
  return Math.max(p.cap + 1, seen, estimate);
}
