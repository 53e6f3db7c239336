import type { Actor, DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';

export interface ListDocumentsInput {
  page: number;
  pageSize: number;
  category?: string;
  tag?: string;
  status?: string;
  authorAccountId?: number;
  deleted: boolean;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A page of the documents the actor may see (newest change first), live or the trash. */
export async function listDocuments(repo: DocumentsRepo, actor: Actor, input: ListDocumentsInput): Promise<{ documents: DocumentRow[]; page: number; pageSize: number; total: number }> {
  const page = Math.max(1, input.page || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, input.pageSize || DEFAULT_PAGE_SIZE));
  const { rows, total } = await repo.list({
    category: input.category,
    tag: input.tag,
    status: input.status,
    authorAccountId: input.authorAccountId,
    deleted: input.deleted,
    visibleTo: actor.isAdmin ? undefined : actor.accountId,
    offset: (page - 1) * pageSize,
    limit: pageSize,
  });
  return { documents: rows, page, pageSize, total };
}
