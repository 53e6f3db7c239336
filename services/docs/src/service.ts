import { join } from 'node:path';
import { Pool } from 'pg';
import { HotPool, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { DocsService } from '@tollgate/protos/docs';
import { SiteService } from '@tollgate/protos/site';
import { loadDocsConfig, type DocsConfig } from './config';
import { createDocsDb } from './db';
import { DocumentsRepo } from './repo/documents-repo';
import { OutboxRepo } from './repo/outbox-repo';
import { OutboxRelay } from './outbox/relay';
import { docsServer } from './server';
import { siteServer } from './site-server';
import { ConfigRepo } from './site/config-repo';
import { ActivityRepo } from './site/activity-repo';
import { RequestRecorderRepo } from './site/request-recorder-repo';
import { AnalyticsRepo } from './site/analytics-repo';
import { consumeActivity } from './site/activity-consumer';
import { startRetention } from './site/retention';

export const docsService: ServiceModule<DocsConfig> = {
  name: 'docs',
  loadConfig: loadDocsConfig,
  start: (config, { log, bus }) =>
    startServiceRuntime({
      name: 'docs',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createDocsDb,
      build: async (db) => {
        const relay = new OutboxRelay(new OutboxRepo(db), bus, log.child({ component: 'outbox-relay' }), { pollMs: config.outboxPollMs, batch: config.outboxBatch });
        const poke = () => relay.poke();
        const hot = new HotPool(config.databaseUrl, { max: 8, maxWaiting: 2_000 });
        const repo = new DocumentsRepo(db, hot, poke);
        const activity = new ActivityRepo(db, hot);
        const recorder = new RequestRecorderRepo(db);
        // analytics reads use plain pg (see AnalyticsRepo); a small pool of their own
        const analyticsPool = new Pool({ connectionString: config.databaseUrl, max: 4 });
        // An idle connection ended by PostgreSQL (a restart, an administrator) is dropped by the pool;
        // unheard, the pool's 'error' event would end the process.
        analyticsPool.on('error', (err) => log.warn({ err }, 'an idle analytics connection was ended by PostgreSQL; the pool opens another'));
        const site = { documents: repo, config: new ConfigRepo(db, poke), activity, recorder, analytics: new AnalyticsRepo(analyticsPool) };
        const subscription = await consumeActivity(bus, config.activityDurable, activity, db, log.child({ component: 'activity' }));
        const retention = startRetention(activity, recorder, { activity: config.activityRetentionDays, raw: config.rawRetentionDays }, log.child({ component: 'retention' }));
        relay.start();
        return {
          services: [
            { definition: DocsService, implementation: docsServer(repo, log) },
            { definition: SiteService, implementation: siteServer(site, log) },
          ],
          onStop: async () => {
            retention.stop();
            await subscription.stop();
            await relay.stop();
            await analyticsPool.end();
            await hot.end();
          },
        };
      },
    }),
};
