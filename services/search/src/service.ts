import { join } from 'node:path';
import { createGrpcClient, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { DocsClient } from '@tollgate/protos/docs';
import { SiteClient } from '@tollgate/protos/site';
import { SearchService } from '@tollgate/protos/search';
import { loadSearchConfig, type SearchConfig } from './config';
import { createSearchDb } from './db';
import { createEngine } from './engine/create-engine';
import { AnalyticsRepo } from './analytics/analytics-repo';
import { AnalyticsRecorder } from './analytics/analytics-recorder';
import { IndexStateRepo } from './indexer/index-state-repo';
import { IndexVersions } from './indexer/index-versions';
import { Mutex } from './indexer/mutex';
import { consumeDocumentEvents } from './indexer/consumer';
import { rebuildIndex } from './indexer/rebuild';
import { buildUntilDone } from './indexer/initial-build';
import { searchServer } from './server';
import { syncSearchSettings } from './settings/settings-sync';

export const searchService: ServiceModule<SearchConfig> = {
  name: 'search',
  loadConfig: loadSearchConfig,
  start: (config, { log, bus }) =>
    startServiceRuntime({
      name: 'search',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createSearchDb,
      build: async (db) => {
        const engine = createEngine(config);
        await engine.init();
        const docs = createGrpcClient(DocsClient, config.docsAddress);
        const site = createGrpcClient(SiteClient, config.docsAddress, { timeoutMs: 5_000 });
        const settings = await syncSearchSettings(bus, site, engine, log.child({ component: 'search-settings' }));
        const indexerLog = log.child({ component: 'indexer' });
        // The embedded index is rebuilt at every start, so its versions may be written behind (in batches).
        const state = new IndexVersions(new IndexStateRepo(db), indexerLog, { writeBehind: !engine.persistent });
        await state.load();
        const indexer = { engine, state, lock: new Mutex(), log: indexerLog };
        const rebuild = () => rebuildIndex({ ...indexer, docs, timeoutMs: config.rebuildTimeoutMs });
        const subscription = await consumeDocumentEvents(bus, config.eventsDurable, indexer);
        let ready = engine.persistent;
        const initial = engine.persistent ? undefined : buildUntilDone(rebuild, indexer.log);
        void initial?.done.then((ok) => (ready = ok));
        const analytics = new AnalyticsRepo(db);
        const recorder = new AnalyticsRecorder(analytics, log.child({ component: 'analytics' }));
        log.info({ engine: engine.name }, 'search engine ready');
        return {
          services: [{ definition: SearchService, implementation: searchServer({ engine, analytics, recorder, log, rebuild, ready: () => ready }) }],
          onStop: async () => {
            initial?.stop();
            await initial?.done;
            await subscription.stop();
            await settings.stop();
            await recorder.flush();
            await state.flush();
            docs.close();
            site.close();
            await engine.close();
          },
        };
      },
    }),
};
