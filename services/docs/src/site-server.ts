import { AppError, implement, type Logger } from '@tollgate/kit';
import { SiteService, type ConfigSection } from '@tollgate/protos/site';
import { actorOf } from './encode';
import type { DocumentsRepo } from './repo/documents-repo';
import type { ConfigRepo } from './site/config-repo';
import type { ActivityRepo } from './site/activity-repo';
import type { RequestRecorderRepo } from './site/request-recorder-repo';
import type { AnalyticsRepo } from './site/analytics-repo';
import { configHistory, getConfigSection, putConfigSection, type SectionView } from './usecases/config-sections';
import { listActivity } from './usecases/list-activity';
import { siteAnalytics } from './usecases/site-analytics';
import { renderDocument } from './usecases/render-document';
import { recordRequests } from './usecases/record-requests';

export interface SiteDeps {
  documents: DocumentsRepo;
  config: ConfigRepo;
  activity: ActivityRepo;
  recorder: RequestRecorderRepo;
  analytics: AnalyticsRepo;
}

const sectionMessage = (s: SectionView): ConfigSection => ({
  section: s.section,
  value: s.value as Record<string, unknown>,
  version: s.version,
  updatedBy: s.updatedBy,
  updatedAt: s.updatedAt ? s.updatedAt.toISOString() : '',
});

/** gRPC handlers of the Site service (configuration, activity, analytics, rendering): decode → use case → encode. */
export function siteServer(deps: SiteDeps, log: Logger) {
  return implement(
    SiteService,
    {
      getConfig: async (req) => sectionMessage(await getConfigSection(deps.config, req.section)),
      putConfig: async (req) => {
        if (!req.value) throw AppError.field(['body'], 'a configuration section is a JSON object');
        return sectionMessage(await putConfigSection(deps.config, actorOf(req.actor), req.section, req.value, req.expectedVersion));
      },
      configHistory: async (req) => {
        const page = Math.max(1, req.page?.page || 1);
        const pageSize = Math.min(100, Math.max(1, req.page?.pageSize || 20));
        const out = await configHistory(deps.config, req.section, page, pageSize);
        return { entries: out.entries.map(sectionMessage), page: { page, pageSize, total: out.total } };
      },
      listActivity: async (req) => {
        const page = Math.max(1, req.page?.page || 1);
        const pageSize = req.page?.pageSize || 20;
        const out = await listActivity(deps.activity, actorOf(req.actor), { userId: req.userId, allUsers: req.allUsers, type: req.type, from: req.from, to: req.to, page, pageSize });
        return {
          items: out.rows.map((r) => ({ id: String(r.id), userId: r.accountId, type: r.type, targetType: r.targetType, targetId: r.targetId, at: r.at.toISOString(), ip: r.ip, userAgent: r.userAgent, summary: r.summary })),
          page: { page, pageSize: Math.min(100, Math.max(1, pageSize)), total: out.total },
        };
      },
      recordRequests: async (req) => {
        await recordRequests(deps.recorder, req.batchId, req.records);
        return {};
      },
      analytics: async (req) => ({
        reportJson: JSON.stringify(await siteAnalytics(deps.analytics, actorOf(req.actor), { report: req.report, from: req.from, to: req.to, interval: req.interval, userId: req.userId, limit: req.limit })),
      }),
      renderDocument: async (req) => {
        const r = await renderDocument(deps.documents, deps.config, actorOf(req.actor), req.id);
        return { id: r.id, version: r.version, title: r.title, html: r.html, toc: r.toc, plugins: r.plugins };
      },
    },
    log,
  );
}
