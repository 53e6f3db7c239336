import { AppError, ErrorCode } from '@tollgate/kit';
import type { Actor, DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { anyVisible } from './access';

/** Takes a document out of the trash as a new version (an `updated` event). */
export function restoreDocument(repo: DocumentsRepo, actor: Actor, id: number): Promise<DocumentRow> {
  return repo.change(id, actor.accountId, (current) => {
    anyVisible(actor, id, current);
    if (!current.deletedAt) throw new AppError(ErrorCode.FailedPrecondition, `document ${id} is not in the trash`);
    return { fields: { deletedAt: null }, event: 'updated', revision: false, action: 'restored' };
  });
}
