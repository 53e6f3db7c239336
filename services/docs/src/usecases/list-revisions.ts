import type { Actor, RevisionRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { findLive } from './access';

/** Every kept revision of a live document, newest first. */
export async function listRevisions(repo: DocumentsRepo, actor: Actor, id: number): Promise<RevisionRow[]> {
  await findLive(repo, actor, id);
  return repo.revisions(id);
}
