import { z } from 'zod';
import { documentJson } from '@tollgate/kit';
import '../http/route-book';
import type { Document, Revision } from '@tollgate/protos/docs';
import { decimalInt, INT32_MAX } from '../http/form-numbers';

/** Limits of the docs API (the docs service checks the same ones). */
export const DOC_LIMITS = { title: 200, content: 500_000, category: 64, tag: 40, tags: 20, slug: 120 } as const;
export const DOC_LIST_DEFAULT_LIMIT = 20;
export const DOC_LIST_MAX_LIMIT = 100;

const slug = z
  .string()
  .max(DOC_LIMITS.slug)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lower-case letters, digits and single dashes')
  .openapi({ description: 'URL name; derived from the title when absent' });
/** Counted as the docs service keeps them: trimmed, empty ones and duplicates dropped (the raw list is bounded too). */
const distinctTags = (list: string[]) => new Set(list.map((t) => t.trim()).filter((t) => t.length > 0)).size;
const tags = z
  .array(z.string().max(DOC_LIMITS.tag))
  .max(DOC_LIMITS.tags * 10)
  .refine((list) => distinctTags(list) <= DOC_LIMITS.tags, `at most ${DOC_LIMITS.tags} tags (after trimming and dropping duplicates)`);
const status = z.enum(['draft', 'published']);

export const createDocumentBody = z
  .object({
    title: z.string().trim().min(1).max(DOC_LIMITS.title),
    content: z.string().max(DOC_LIMITS.content).openapi({ description: 'Markdown' }),
    category: z.string().max(DOC_LIMITS.category).optional(),
    tags: tags.optional(),
    status: status.optional().openapi({ description: 'Default published; drafts are visible only to their author and admins and are not searchable' }),
    slug: slug.optional(),
  })
  .strict();

export const updateDocumentBody = z
  .object({
    title: z.string().trim().min(1).max(DOC_LIMITS.title).optional(),
    content: z.string().max(DOC_LIMITS.content).optional(),
    category: z.string().max(DOC_LIMITS.category).optional(),
    tags: tags.optional(),
    status: status.optional(),
    slug: slug.optional(),
    version: z.number().int().min(1).max(INT32_MAX).optional().openapi({ description: 'Apply only if the document is still at this version (409 otherwise)' }),
  })
  .strict()
  .refine((b) => Object.keys(b).some((k) => k !== 'version'), { message: 'nothing to update: give at least one of title, content, category, tags, status, slug' });

const id = decimalInt(1, INT32_MAX);
export const idParams = z.object({ id });
export const revisionParams = z.object({ id, version: decimalInt(1, INT32_MAX) });

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listDocumentsQuery = z.object({
  page: decimalInt(1, 100_000).optional().openapi({ description: 'Default 1' }),
  limit: decimalInt(1, DOC_LIST_MAX_LIMIT).optional().openapi({ description: `Default ${DOC_LIST_DEFAULT_LIMIT}, at most ${DOC_LIST_MAX_LIMIT}` }),
  category: z.string().max(DOC_LIMITS.category).optional(),
  tag: z.string().max(DOC_LIMITS.tag).optional(),
  status: status.optional(),
  author: decimalInt(0, INT32_MAX).optional().openapi({ description: "Author's account id" }),
  deleted: bool.optional().openapi({ type: 'string', enum: ['true', 'false'], description: 'true lists the trash (needs docs_write)' }),
});

export const deleteQuery = z.object({
  permanent: bool.optional().openapi({ type: 'string', enum: ['true', 'false'], description: 'true removes the document and its revisions for good (author or admin)' }),
});

export const documentSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  title: z.string(),
  content: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  status: status,
  author_id: z.number().int(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
});

export const documentListItemSchema = documentSchema.omit({ content: true }).extend({ excerpt: z.string() });

export const revisionSchema = z.object({
  document_id: z.number().int(),
  version: z.number().int(),
  title: z.string(),
  content: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  editor_id: z.number().int(),
  created_at: z.string(),
});

export const envelope = (data: z.ZodType) => z.object({ code: z.number().int(), message: z.string(), data, timestamp: z.string() });

/** The document as the API returns it (one renderer, shared with webhook deliveries). */
export { documentJson };

export function documentListItemJson(d: Document) {
  const { content, ...rest } = documentJson(d);
  return { ...rest, excerpt: content };
}

export function revisionJson(r: Revision) {
  return { document_id: r.documentId, version: r.version, title: r.title, content: r.content, category: r.category, tags: r.tags, editor_id: r.authorAccountId, created_at: r.createdAt };
}
