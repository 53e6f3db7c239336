import { maySeeRevision, type Actor, type RevisionRow } from '../domain/document';
import { revisionNotFound } from '../domain/errors';
import type { DocumentsRepo } from '../repo/documents-repo';
import { findLive } from './access';

export async function getRevision(repo: DocumentsRepo, actor: Actor, id: number, version: number): Promise<RevisionRow> {
  const doc = await findLive(repo, actor, id);
  const revision = await repo.revision(id, version);
  if (!revision || !maySeeRevision(actor, doc, revision)) throw revisionNotFound(id, version);
  return revision;
}
