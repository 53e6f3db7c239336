import { maySeeRevision, type Actor, type DocumentRow } from '../domain/document';
import { revisionNotFound } from '../domain/errors';
import type { DocumentsRepo } from '../repo/documents-repo';
import { findLive, liveVisible } from './access';

/** A new version whose title, content, category and tags are the revision's (status and slug stay). */
export async function restoreRevision(repo: DocumentsRepo, actor: Actor, id: number, version: number): Promise<DocumentRow> {
  const doc = await findLive(repo, actor, id);
  const revision = await repo.revision(id, version);
  if (!revision || !maySeeRevision(actor, doc, revision)) throw revisionNotFound(id, version);
  return repo.change(id, actor.accountId, (current) => {
    liveVisible(actor, id, current);
    const { title, content, category, tags } = revision;
    return { fields: { title, content, category, tags }, event: 'updated', revision: true };
  });
}
