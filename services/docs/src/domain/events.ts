import { documentSubject, type DocumentChange, type DocumentEvent } from '@tollgate/kit';
import type { DocumentRow } from './document';

/** The bus event for a change, as written to the outbox in the change's transaction. */
export function documentEvent(
  change: DocumentChange,
  doc: DocumentRow,
  actorAccountId: number,
  opts: { permanent?: boolean; version?: number; action?: 'restored' } = {},
): { subject: string; payload: DocumentEvent } {
  const payload: DocumentEvent = {
    change,
    id: doc.id,
    version: opts.version ?? doc.version,
    document: opts.permanent
      ? undefined
      : {
          id: doc.id,
          slug: doc.slug,
          title: doc.title,
          content: doc.content,
          category: doc.category,
          tags: doc.tags,
          status: doc.status,
          author_account_id: doc.authorAccountId,
          created_at: doc.createdAt.toISOString(),
          updated_at: doc.updatedAt.toISOString(),
          deleted_at: doc.deletedAt ? doc.deletedAt.toISOString() : null,
        },
    ...(opts.permanent && { author_account_id: doc.authorAccountId, status: doc.status }),
    ...(opts.action && { action: opts.action }),
    actor_account_id: actorAccountId,
    category: doc.category,
    at: new Date().toISOString(),
  };
  return { subject: documentSubject(change), payload };
}
