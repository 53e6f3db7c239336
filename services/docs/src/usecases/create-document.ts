import { checkCategory, checkContent, checkSlug, checkStatus, checkTags, checkTitle, slugify, type Actor, type DocumentRow } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import { AppError, ErrorCode } from '@tollgate/kit';

export interface CreateDocumentInput {
  title: string;
  content: string;
  category: string;
  tags: string[];
  /** Empty means published. */
  status: string;
  /** Empty means derived from the title. */
  slug: string;
}

const ATTEMPTS = 6;

/** A new document at version 1 (with its first revision and a `created` event); the actor is its author. */
export async function createDocument(repo: DocumentsRepo, actor: Actor, input: CreateDocumentInput): Promise<DocumentRow> {
  const fields = {
    title: checkTitle(input.title),
    content: checkContent(input.content),
    category: checkCategory(input.category),
    tags: checkTags(input.tags),
    status: checkStatus(input.status || 'published'),
  };
  if (input.slug) return repo.create({ ...fields, slug: checkSlug(input.slug) }, actor.accountId);
  const base = slugify(fields.title) || 'document';
  for (let attempt = 1; ; attempt++) {
    try {
      // Most titles are new: the plain slug in one statement. Once it is taken, a free `base-N` is
      // chosen and written under the base's lock, so concurrent creators of one title take turns.
      if (attempt === 1) return await repo.create({ ...fields, slug: base }, actor.accountId);
      return await repo.withSlugLocks([base], async (w) => (await w.createMany([{ ...fields, slug: freeSlug(base, await w.takenSlugs([base], [base])) }], actor.accountId))[0]);
    } catch (err) {
      // Only a writer that took a slug without the lock (a given slug, a first attempt) is raced now.
      const raced = err instanceof AppError && err.code === ErrorCode.AlreadyExists;
      if (!raced || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** `base`, else `base-2`, `base-3`, … whichever is not taken. */
export function freeSlug(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * freeSlug for many titles at once: remembers, per base, where the last search for a free
 * `base-N` ended (everything below it is taken, and stays so), so k documents with one title
 * cost k steps instead of k²/2.
 */
export function slugAllocator(taken: Set<string>): (base: string) => string {
  const next = new Map<string, number>();
  return (base) => {
    let slug = base;
    if (taken.has(base)) {
      let n = next.get(base) ?? 2;
      while (taken.has(`${base}-${n}`)) n++;
      next.set(base, n + 1);
      slug = `${base}-${n}`;
    }
    taken.add(slug);
    return slug;
  };
}
