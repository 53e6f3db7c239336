import { join } from 'node:path';
import { ensureDatabase, startEmbeddedPostgres, type Logger, type ServiceName } from '@tollgate/kit';

export interface ServiceDatabases {
  urls: Record<ServiceName, string>;
  /** Set when an embedded PostgreSQL was started for services without a configured URL. */
  embedded?: { port: number; stop(): Promise<void> };
}

/**
 * One database per service: `DATABASE_URL_<SERVICE>` where set, otherwise `tollgate_<service>`
 * in an embedded PostgreSQL kept in the data folder.
 */
export async function provideDatabases(services: readonly ServiceName[], options: { env: NodeJS.ProcessEnv; dataDir: string; port: number; log: Logger }): Promise<ServiceDatabases> {
  const urls = {} as Record<ServiceName, string>;
  const missing = services.filter((name) => {
    const configured = options.env[`DATABASE_URL_${name.toUpperCase()}`];
    if (configured) urls[name] = configured;
    return !configured;
  });
  if (missing.length === 0) return { urls };

  const pg = await startEmbeddedPostgres({ dataDir: join(options.dataDir, 'postgres'), port: options.port || undefined, logger: options.log });
  for (const name of missing) {
    await ensureDatabase(pg.adminConnectionString, `tollgate_${name}`);
    urls[name] = pg.connectionStringFor(`tollgate_${name}`);
  }
  options.log.info({ port: pg.port, databases: missing.map((n) => `tollgate_${n}`) }, 'embedded PostgreSQL ready');
  return { urls, embedded: { port: pg.port, stop: () => pg.stop() } };
}
