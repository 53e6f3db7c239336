import { AppError, ErrorCode } from '@tollgate/kit';
import { checkCategory, checkContent, checkSlug, checkStatus, checkTags, checkTitle, slugify, type Actor, type DocumentFields, type DocumentRow } from '../domain/document';
import { slugTaken } from '../domain/errors';
import type { DocumentsRepo, SlugWriter } from '../repo/documents-repo';
import type { CreateDocumentInput } from './create-document';
import { slugAllocator } from './create-document';

/** Most documents one bulk import may carry. */
export const MAX_BULK_DOCUMENTS = 1_000;
const ATTEMPTS = 3;

export type BulkItemResult = { index: number; document: DocumentRow } | { index: number; error: AppError };

/**
 * Creates many documents at once, as createDocument would one by one: each item is validated on
 * its own (a bad item gets its error, the others are still created), slugs are given or derived
 * from titles (`base`, `base-2`, … also unique within the batch), and the valid items are written
 * in one transaction with their revisions and `created` events. A given slug that is taken, or
 * given twice in the batch, is that item's 409. Should another writer take a slug meanwhile,
 * the slugs are chosen again (up to 3 times).
 */
export async function bulkCreateDocuments(repo: DocumentsRepo, actor: Actor, items: CreateDocumentInput[]): Promise<BulkItemResult[]> {
  if (items.length === 0) throw AppError.field(['body', 'documents'], 'documents: at least one document is required');
  if (items.length > MAX_BULK_DOCUMENTS) throw AppError.field(['body', 'documents'], `documents: at most ${MAX_BULK_DOCUMENTS} per request`);
  const results: BulkItemResult[] = new Array(items.length);
  const valid: Array<{ index: number; fields: Omit<DocumentFields, 'slug'>; slug?: string }> = [];
  items.forEach((input, index) => {
    try {
      const fields = { title: checkTitle(input.title), content: checkContent(input.content), category: checkCategory(input.category), tags: checkTags(input.tags), status: checkStatus(input.status || 'published') };
      valid.push({ index, fields, slug: input.slug ? checkSlug(input.slug) : undefined });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      results[index] = { index, error: err };
    }
  });

  const write = async (w: SlugWriter) => {
    const planned = await planSlugs(w, valid);
    const toCreate = planned.filter((p): p is (typeof planned)[number] & { slug: string } => p.slug !== undefined);
    const rows = await w.createMany(
      toCreate.map((p) => ({ ...p.fields, slug: p.slug })),
      actor.accountId,
    );
    rows.forEach((row, i) => (results[toCreate[i].index] = { index: toCreate[i].index, document: row }));
    for (const p of planned) if (p.slug === undefined) results[p.index] = { index: p.index, error: slugTaken(p.wanted) };
    return results;
  };
  // Derived slugs: planned and written under their bases' locks once a first try was raced.
  const bases = [...new Set(valid.filter((v) => v.slug === undefined).map((v) => slugify(v.fields.title) || 'document'))];
  for (let attempt = 1; ; attempt++) {
    try {
      return attempt === 1 ? await write(repo) : await repo.withSlugLocks(bases, write);
    } catch (err) {
      const raced = err instanceof AppError && err.code === ErrorCode.AlreadyExists;
      if (!raced || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** A slug per valid item (undefined: the given slug is taken or repeated), unique against the table and the batch. */
async function planSlugs<T extends { fields: { title: string }; slug?: string }>(repo: Pick<SlugWriter, 'takenSlugs'>, valid: T[]): Promise<Array<T & { slug: string | undefined; wanted: string }>> {
  const wanted = valid.map((v) => v.slug ?? (slugify(v.fields.title) || 'document'));
  const taken = await repo.takenSlugs([...new Set(wanted)], []);
  const firstIndex = new Map<string, number>();
  wanted.forEach((w, i) => firstIndex.has(w) || firstIndex.set(w, i));
  const derivedTaken = [...new Set(valid.flatMap((v, i) => (v.slug === undefined && (taken.has(wanted[i]) || firstIndex.get(wanted[i]) !== i) ? [wanted[i]] : [])))];
  if (derivedTaken.length > 0) for (const s of await repo.takenSlugs([], derivedTaken)) taken.add(s);
  const used = new Set<string>();
  const slugs: Array<string | undefined> = valid.map(() => undefined);
  // Given slugs first, so that a derived one never takes a slug the batch asked for by name.
  valid.forEach((v, i) => {
    if (v.slug === undefined || taken.has(v.slug) || used.has(v.slug)) return;
    slugs[i] = v.slug;
    used.add(v.slug);
  });
  for (const s of used) taken.add(s);
  const allocate = slugAllocator(taken);
  valid.forEach((v, i) => {
    if (v.slug === undefined) slugs[i] = allocate(wanted[i]);
  });
  return valid.map((v, i) => ({ ...v, slug: slugs[i], wanted: wanted[i] }));
}
