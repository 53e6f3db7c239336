import { maySee, type Actor, type DocumentRow } from '../domain/document';
import { documentInTrash, documentNotFound } from '../domain/errors';
import type { DocumentsRepo } from '../repo/documents-repo';

/** A live document the actor may see; a draft of someone else is "not found", like a missing one. */
export function liveVisible(actor: Actor, id: number, doc: DocumentRow | null): DocumentRow {
  if (!doc || !maySee(actor, doc)) throw documentNotFound(id);
  if (doc.deletedAt) throw documentInTrash(id);
  return doc;
}

/** Any document (live or in the trash) the actor may see. */
export function anyVisible(actor: Actor, id: number, doc: DocumentRow | null): DocumentRow {
  if (!doc || !maySee(actor, doc)) throw documentNotFound(id);
  return doc;
}

export async function findLive(repo: DocumentsRepo, actor: Actor, id: number): Promise<DocumentRow> {
  return liveVisible(actor, id, await repo.find(id));
}
