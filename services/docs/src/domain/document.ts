import { AppError } from '@tollgate/kit';

export const DOCUMENT_STATUSES = ['draft', 'published'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const LIMITS = {
  title: 200,
  content: 500_000,
  category: 64,
  tag: 40,
  tags: 20,
  slug: 120,
} as const;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface DocumentRow {
  id: number;
  slug: string;
  title: string;
  content: string;
  category: string;
  tags: string[];
  authorAccountId: number;
  status: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface RevisionRow {
  documentId: number;
  version: number;
  title: string;
  content: string;
  category: string;
  tags: string[];
  authorAccountId: number;
  createdAt: Date;
  /** The document's status when this version was made (null: kept before it was recorded). */
  status: string | null;
}

/** The fields a change may set; everything else the repository derives. */
export interface DocumentFields {
  title: string;
  content: string;
  category: string;
  tags: string[];
  status: DocumentStatus;
  slug: string;
}

export interface Actor {
  accountId: number;
  isAdmin: boolean;
}

/** A title as a URL slug: lower-case ASCII words joined by dashes; empty when nothing is left. */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LIMITS.slug - 8)
    .replace(/-+$/, '');
}

/** Trimmed, distinct, non-empty tags in the order given. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t.length > 0))];
}

const field = (name: string, msg: string) => AppError.field(['body', name], `${name}: ${msg}`);

export function checkTitle(title: string): string {
  const t = title.trim();
  if (!t) throw field('title', 'must not be empty');
  if (t.length > LIMITS.title) throw field('title', `must be at most ${LIMITS.title} characters`);
  return t;
}

export function checkContent(content: string): string {
  if (content.length > LIMITS.content) throw field('content', `must be at most ${LIMITS.content} characters`);
  return content;
}

export function checkCategory(category: string): string {
  const c = category.trim();
  if (c.length > LIMITS.category) throw field('category', `must be at most ${LIMITS.category} characters`);
  return c;
}

export function checkTags(tags: readonly string[]): string[] {
  const t = normalizeTags(tags);
  if (t.length > LIMITS.tags) throw field('tags', `at most ${LIMITS.tags} tags`);
  const long = t.find((x) => x.length > LIMITS.tag);
  if (long) throw field('tags', `each tag must be at most ${LIMITS.tag} characters ("${long.slice(0, 20)}…")`);
  return t;
}

export function checkStatus(status: string): DocumentStatus {
  if (!(DOCUMENT_STATUSES as readonly string[]).includes(status)) throw field('status', `must be one of ${DOCUMENT_STATUSES.join(', ')}`);
  return status as DocumentStatus;
}

export function checkSlug(slug: string): string {
  if (slug.length > LIMITS.slug || !SLUG_PATTERN.test(slug)) {
    throw field('slug', `must be lower-case letters, digits and single dashes, at most ${LIMITS.slug} characters`);
  }
  return slug;
}

/** Who may see a document at all: its author, an admin, or anyone once it is published. */
export function maySee(actor: Actor, doc: Pick<DocumentRow, 'authorAccountId' | 'status'>): boolean {
  return actor.isAdmin || doc.authorAccountId === actor.accountId || doc.status === 'published';
}

/**
 * A version made while the document was a draft is the author's and the admins' alone, even once
 * the document is published: a published document shows its published history to its readers.
 */
export function maySeeRevision(actor: Actor, doc: Pick<DocumentRow, 'authorAccountId'>, revision: Pick<RevisionRow, 'status'>): boolean {
  return revision.status !== 'draft' || actor.isAdmin || doc.authorAccountId === actor.accountId;
}

/** Only the author or an admin removes a document for good. */
export function mayDestroy(actor: Actor, doc: Pick<DocumentRow, 'authorAccountId'>): boolean {
  return actor.isAdmin || doc.authorAccountId === actor.accountId;
}
