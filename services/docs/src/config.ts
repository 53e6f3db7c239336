import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const docsConfigSchema = serviceConfigSchema(
  'docs',
  {
    /** How often the outbox relay looks for unpublished events when nothing pokes it (and retries after a bus failure). */
    DOCS_OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1_000),
    /** Events published per relay transaction. */
    DOCS_OUTBOX_BATCH: z.coerce.number().int().min(1).max(10_000).default(200),
  },
  (env) => ({ outboxPollMs: env.DOCS_OUTBOX_POLL_MS, outboxBatch: env.DOCS_OUTBOX_BATCH }),
);

export type DocsConfig = ReturnType<typeof loadDocsConfig>;

export function loadDocsConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(docsConfigSchema, env);
}
