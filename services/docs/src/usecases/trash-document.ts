import type { Actor, DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { liveVisible } from './access';

/** Moves a live document to the trash (a `deleted` event; it leaves the index). */
export function trashDocument(repo: DocumentsRepo, actor: Actor, id: number): Promise<DocumentRow> {
  return repo.change(id, actor.accountId, (current) => {
    liveVisible(actor, id, current);
    return { fields: { deletedAt: new Date() }, event: 'deleted', revision: false };
  });
}
