import type { DocumentEvent } from '@tollgate/kit';
import type { Document } from '@tollgate/protos/docs';
import { markdownToText } from '../engine/text';
import type { SearchDoc } from '../engine/types';

type EventDocument = NonNullable<DocumentEvent['document']>;

/** Only published documents outside the trash are searchable. */
export function isSearchable(doc: { status: string; deleted_at?: string | null; deletedAt?: string }): boolean {
  return doc.status === 'published' && !doc.deleted_at && !doc.deletedAt;
}

export function fromEventDocument(d: EventDocument): SearchDoc {
  return {
    id: d.id,
    slug: d.slug,
    title: d.title,
    text: markdownToText(d.content),
    category: d.category,
    tags: d.tags,
    authorAccountId: d.author_account_id,
    createdAt: Date.parse(d.created_at),
    updatedAt: Date.parse(d.updated_at),
  };
}

export function fromDocumentMessage(d: Document): SearchDoc {
  return {
    id: d.id,
    slug: d.slug,
    title: d.title,
    text: markdownToText(d.content),
    category: d.category,
    tags: d.tags,
    authorAccountId: d.authorAccountId,
    createdAt: Date.parse(d.createdAt),
    updatedAt: Date.parse(d.updatedAt),
  };
}
