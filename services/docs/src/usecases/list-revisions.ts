import { maySeeRevision, type Actor, type RevisionRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { findLive } from './access';

/** Every kept revision of a live document the actor may see, newest first. */
export async function listRevisions(repo: DocumentsRepo, actor: Actor, id: number): Promise<RevisionRow[]> {
  const doc = await findLive(repo, actor, id);
  return (await repo.revisions(id)).filter((r) => maySeeRevision(actor, doc, r));
}
