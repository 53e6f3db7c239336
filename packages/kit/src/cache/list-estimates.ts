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
