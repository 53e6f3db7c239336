import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { DocsService } from '@tollgate/protos/docs';
import { loadDocsConfig, type DocsConfig } from './config';
import { createDocsDb } from './db';
import { DocumentsRepo } from './repo/documents-repo';
import { OutboxRepo } from './repo/outbox-repo';
import { OutboxRelay } from './outbox/relay';
import { docsServer } from './server';

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
      build: (db) => {
        const relay = new OutboxRelay(new OutboxRepo(db), bus, log.child({ component: 'outbox-relay' }), { pollMs: config.outboxPollMs, batch: config.outboxBatch });
        const repo = new DocumentsRepo(db, () => relay.poke());
        relay.start();
        return { services: [{ definition: DocsService, implementation: docsServer(repo, log) }], onStop: () => relay.stop() };
      },
    }),
};
