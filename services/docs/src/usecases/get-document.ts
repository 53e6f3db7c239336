import type { Actor, DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { findLive } from './access';

export function getDocument(repo: DocumentsRepo, actor: Actor, id: number): Promise<DocumentRow> {
  return findLive(repo, actor, id);
}
