export type DocumentChange = 'created' | 'updated' | 'deleted';

/** `docs.document.created|updated|deleted`, written through the docs service's outbox. */
export interface DocumentEvent {
  change: DocumentChange;
  id: number;
  version: number;
  /** The document after the change; absent for a permanent delete. */
  document?: {
    id: number;
    slug: string;
    title: string;
    content: string;
    category: string;
    tags: string[];
    status: string;
    author_account_id: number;
    created_at: string;
    updated_at: string;
    deleted_at?: string | null;
  };
  /** Set on an `updated` event that took the document out of the trash. */
  action?: 'restored';
  /** On a permanent delete (no `document`): who wrote it and whether it was published, for access checks. */
  author_account_id?: number;
  status?: string;
  /** Who made the change (the author of a create, the editor of an update, who deleted it). */
  actor_account_id?: number;
  /** The document's category at the change, on every event (a permanent delete has no `document`). */
  category?: string;
  at: string;
}

export const documentSubject = (change: DocumentChange) => `docs.document.${change}`;
export const DOCUMENT_SUBJECTS = 'docs.document.*';
