import { join } from 'node:path';
import { createGrpcClient, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { DocsClient } from '@tollgate/protos/docs';
import { SearchService } from '@tollgate/protos/search';
import { loadSearchConfig, type SearchConfig } from './config';
import { createSearchDb } from './db';
import { createEngine } from './engine/create-engine';
import { AnalyticsRepo } from './analytics/analytics-repo';
import { IndexStateRepo } from './indexer/index-state-repo';
import { Mutex } from './indexer/mutex';
import { consumeDocumentEvents } from './indexer/consumer';
import { rebuildIndex } from './indexer/rebuild';
import { buildUntilDone } from './indexer/initial-build';
import { searchServer } from './server';

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
        const indexer = { engine, state: new IndexStateRepo(db), lock: new Mutex(), log: log.child({ component: 'indexer' }) };
        const rebuild = () => rebuildIndex({ ...indexer, docs, timeoutMs: config.rebuildTimeoutMs });
        const subscription = await consumeDocumentEvents(bus, config.eventsDurable, indexer);
        let ready = engine.persistent;
        const initial = engine.persistent ? undefined : buildUntilDone(rebuild, indexer.log);
        void initial?.done.then((ok) => (ready = ok));
        log.info({ engine: engine.name }, 'search engine ready');
        return {
          services: [{ definition: SearchService, implementation: searchServer({ engine, analytics: new AnalyticsRepo(db), log, rebuild, ready: () => ready }) }],
          onStop: async () => {
            initial?.stop();
            await initial?.done;
            await subscription.stop();
            docs.close();
            await engine.close();
          },
        };
      },
    }),
};
