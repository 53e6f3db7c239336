import { checkCategory, checkContent, checkSlug, checkStatus, checkTags, checkTitle, type Actor, type DocumentFields, type DocumentRow } from '../domain/document';
import { versionMismatch } from '../domain/errors';
import type { DocumentsRepo } from '../repo/documents-repo';
import { liveVisible } from './access';

export interface UpdateDocumentInput {
  title?: string;
  content?: string;
  category?: string;
  /** Undefined leaves the tags as they are. */
  tags?: string[];
  status?: string;
  slug?: string;
  expectedVersion?: number;
}

/** Applies the given fields as a new version with its revision; an update that changes nothing keeps the version. */
export function updateDocument(repo: DocumentsRepo, actor: Actor, id: number, input: UpdateDocumentInput): Promise<DocumentRow> {
  const wanted: Partial<DocumentFields> = {
    ...(input.title !== undefined && { title: checkTitle(input.title) }),
    ...(input.content !== undefined && { content: checkContent(input.content) }),
    ...(input.category !== undefined && { category: checkCategory(input.category) }),
    ...(input.tags !== undefined && { tags: checkTags(input.tags) }),
    ...(input.status !== undefined && { status: checkStatus(input.status) }),
    ...(input.slug !== undefined && { slug: checkSlug(input.slug) }),
  };
  return repo.change(id, actor.accountId, (current) => {
    liveVisible(actor, id, current);
    if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) throw versionMismatch(id, input.expectedVersion, current.version);
    const fields = changedFields(current, wanted);
    return Object.keys(fields).length === 0 ? null : { fields, event: 'updated', revision: true };
  });
}

/** The subset of `wanted` that differs from `current`. */
export function changedFields(current: DocumentRow, wanted: Partial<DocumentFields>): Partial<DocumentFields> {
  const out: Partial<DocumentFields> = {};
  for (const [key, value] of Object.entries(wanted) as Array<[keyof DocumentFields, DocumentFields[keyof DocumentFields]]>) {
    const before = current[key];
    const same = Array.isArray(value) ? Array.isArray(before) && before.length === value.length && value.every((v, i) => before[i] === v) : before === value;
    if (!same) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
