import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const searchConfigSchema = serviceConfigSchema(
  'search',
  {
    /** Where the docs service answers (StreamAllDocuments for rebuilds). */
    DOCS_GRPC_ADDR: z.string().min(1).default('127.0.0.1:50054'),
    /** When set, the index lives in this Meilisearch; otherwise the embedded engine, rebuilt at start. */
    MEILISEARCH_URL: z.string().url().optional(),
    MEILISEARCH_API_KEY: z.string().optional(),
    MEILISEARCH_INDEX: z.string().regex(/^[A-Za-z0-9_-]+$/).default('documents'),
    /** Durable consumer name of the document-event subscription. */
    SEARCH_EVENTS_DURABLE: z.string().regex(/^[A-Za-z0-9_-]+$/).default('search-indexer'),
    /** Embedded engine: `worker` runs indexing and searches in a worker thread (off the event loop), `inline` on it. */
    SEARCH_ENGINE_THREAD: z.enum(['worker', 'inline']).default('worker'),
    /** Deadline of one full rebuild stream from the docs service. */
    SEARCH_REBUILD_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
  },
  (env) => ({
    docsAddress: env.DOCS_GRPC_ADDR,
    meilisearch: env.MEILISEARCH_URL ? { url: env.MEILISEARCH_URL, apiKey: env.MEILISEARCH_API_KEY, index: env.MEILISEARCH_INDEX } : undefined,
    eventsDurable: env.SEARCH_EVENTS_DURABLE,
    engineThread: env.SEARCH_ENGINE_THREAD,
    rebuildTimeoutMs: env.SEARCH_REBUILD_TIMEOUT_MS,
  }),
);

export type SearchConfig = ReturnType<typeof loadSearchConfig>;

export function loadSearchConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(searchConfigSchema, env);
}
