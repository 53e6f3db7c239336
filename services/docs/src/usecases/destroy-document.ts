import { AppError } from '@tollgate/kit';
import { mayDestroy, type Actor, type DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { anyVisible } from './access';

/** Removes a document (live or in the trash) and its revisions for good; author or admin only. */
export function destroyDocument(repo: DocumentsRepo, actor: Actor, id: number): Promise<DocumentRow> {
  return repo.destroy(id, (current) => {
    anyVisible(actor, id, current);
    if (!mayDestroy(actor, current)) throw AppError.forbidden(`only the author of document ${id} or an admin may delete it permanently`);
  }, actor.accountId);
}
