import type { Document } from '@tollgate/protos/docs';
import type { Task } from '@tollgate/protos/tasks';

/**
 * The public JSON of a task and of a document: one renderer for the REST API (gateway) and for
 * webhook deliveries (tasks service), so a delivery's `data` is exactly what the API returns.
 */
export const taskJson = (t: Task) => ({
  task_number: t.taskNumber,
  status: t.status,
  task_progress: t.taskProgress ?? null,
  task_result: t.taskResult ?? null,
  comments: t.comments,
  kind: t.kind,
  app_id: t.appId,
  mode: t.mode,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
  started_at: t.startedAt || null,
  finished_at: t.finishedAt || null,
});

export function documentJson(d: Document) {
  return {
    id: d.id,
    slug: d.slug,
    title: d.title,
    content: d.content,
    category: d.category,
    tags: d.tags,
    status: d.status,
    author_id: d.authorAccountId,
    version: d.version,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    deleted_at: d.deletedAt || null,
  };
}
