import type { BulkCreateResult, Document, Revision } from '@tollgate/protos/docs';
import type { BulkItemResult } from './usecases/bulk-create-documents';
import type { Actor as ActorMessage } from '@tollgate/protos/common';
import { AppError } from '@tollgate/kit';
import type { Actor, DocumentRow, RevisionRow } from './domain/document';

export function toDocumentMessage(doc: DocumentRow): Document {
  return {
    id: doc.id,
    slug: doc.slug,
    title: doc.title,
    content: doc.content,
    category: doc.category,
    tags: doc.tags,
    authorAccountId: doc.authorAccountId,
    status: doc.status,
    version: doc.version,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    deletedAt: doc.deletedAt ? doc.deletedAt.toISOString() : '',
  };
}

export function toRevisionMessage(r: RevisionRow): Revision {
  return {
    documentId: r.documentId,
    version: r.version,
    title: r.title,
    content: r.content,
    category: r.category,
    tags: r.tags,
    authorAccountId: r.authorAccountId,
    createdAt: r.createdAt.toISOString(),
  };
}

/** One bulk item's outcome: the created document's identity, or the error refusing it. */
export function toBulkResultMessage(r: BulkItemResult): BulkCreateResult {
  if ('document' in r) {
    const d = r.document;
    return { index: r.index, id: d.id, slug: d.slug, version: d.version, status: d.status, createdAt: d.createdAt.toISOString(), errorCode: '', errorMessage: '', issues: [] };
  }
  return { index: r.index, id: 0, slug: '', version: 0, status: '', createdAt: '', errorCode: r.error.code, errorMessage: r.error.message, issues: r.error.details.issues ?? [] };
}

/** Every docs RPC acts for someone the gateway authenticated. */
export function actorOf(actor: ActorMessage | undefined): Actor {
  if (!actor) throw AppError.unauthenticated('no actor on the request');
  return { accountId: actor.accountId, isAdmin: actor.isAdmin };
}
