import { implement, type Logger } from '@tollgate/kit';
import { SearchService } from '@tollgate/protos/search';
import type { AnalyticsRepo } from './analytics/analytics-repo';
import type { AnalyticsRecorder } from './analytics/analytics-recorder';
import type { SearchEngine } from './engine/types';
import { toAnalyticsResponse, toSearchResponse, toSuggestionMessage } from './encode';
import { searchDocuments } from './usecases/search';
import { advancedSearch } from './usecases/advanced-search';
import { suggest } from './usecases/suggest';
import { analyticsReport } from './usecases/analytics-report';

export interface SearchServerDeps {
  engine: SearchEngine;
  analytics: AnalyticsRepo;
  recorder: AnalyticsRecorder;
  log: Logger;
  rebuild(): Promise<{ indexed: number; tookMs: number }>;
  ready(): boolean;
}

/** gRPC handlers of the Search service: decode → use case → encode. */
export function searchServer(deps: SearchServerDeps) {
  return implement(
    SearchService,
    {
      search: async (req) =>
        toSearchResponse(await searchDocuments(deps, { q: req.q, page: req.page?.page, pageSize: req.page?.pageSize, accountId: req.actor?.accountId })),
      advancedSearch: async (req) =>
        toSearchResponse(
          await advancedSearch(deps, {
            query: req.query,
            categories: req.categories,
            tags: req.tags,
            dateRange: req.dateRange,
            sort: req.sort,
            limit: req.limit,
            page: req.page,
            accountId: req.actor?.accountId,
          }),
        ),
      suggest: async (req) => ({ suggestions: (await suggest(deps.engine, { q: req.q, limit: req.limit })).map(toSuggestionMessage) }),
      analytics: async (req) => {
        await deps.recorder.flush();
        return toAnalyticsResponse(await analyticsReport(deps.analytics, { from: req.from, to: req.to, limit: req.limit, interval: req.interval, accountId: req.actor?.isAdmin ? req.accountId : (req.actor?.accountId ?? -1) }));
      },
      rebuild: async () => deps.rebuild(),
      status: async () => ({ engine: deps.engine.name, documents: await deps.engine.count(), ready: deps.ready() }),
    },
    deps.log,
  );
}
