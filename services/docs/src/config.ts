import { z } from 'zod';
import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const docsConfigSchema = serviceConfigSchema(
  'docs',
  {
    /** How often the outbox relay looks for unpublished events when nothing pokes it (and retries after a bus failure). */
    DOCS_OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1_000),
    /** Events published per relay transaction. */
    DOCS_OUTBOX_BATCH: z.coerce.number().int().min(1).max(10_000).default(200),
    /** Days the user activity log keeps an item. */
    ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /** Days raw request measurements are kept (the hourly and daily rollups stay). */
    ANALYTICS_RAW_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
    /** Durable consumer name of the activity log on the bus. */
    DOCS_ACTIVITY_DURABLE: z.string().regex(/^[A-Za-z0-9_-]+$/).default('docs-activity'),
  },
  (env) => ({
    outboxPollMs: env.DOCS_OUTBOX_POLL_MS,
    outboxBatch: env.DOCS_OUTBOX_BATCH,
    activityRetentionDays: env.ACTIVITY_RETENTION_DAYS,
    rawRetentionDays: env.ANALYTICS_RAW_RETENTION_DAYS,
    activityDurable: env.DOCS_ACTIVITY_DURABLE,
  }),
);

export type DocsConfig = ReturnType<typeof loadDocsConfig>;

export function loadDocsConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(docsConfigSchema, env);
}
