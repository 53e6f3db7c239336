/** A published, live document as the index holds it (content reduced to plain text). */
export interface SearchDoc {
  id: number;
  slug: string;
  title: string;
  text: string;
  category: string;
  tags: string[];
  authorAccountId: number;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export const SORTS = ['relevance', 'updated_desc', 'updated_asc', 'created_desc', 'created_asc', 'title_asc'] as const;
export type SortKey = (typeof SORTS)[number];

export interface EngineQuery {
  /** Empty: every document that passes the filters. */
  q: string;
  /** Any of these categories (none given: no restriction); likewise tags. */
  categories: string[];
  tags: string[];
  /** updated_at range in epoch ms: from inclusive, to exclusive. */
  updatedFrom?: number;
  updatedTo?: number;
  sort: SortKey;
  offset: number;
  limit: number;
}

/** `titleHighlighted` and `snippet` are HTML-escaped, with matches wrapped in <mark></mark>. */
export interface EngineHit {
  id: number;
  slug: string;
  title: string;
  titleHighlighted: string;
  snippet: string;
  category: string;
  tags: string[];
  authorAccountId: number;
  createdAt: number;
  updatedAt: number;
  score: number;
}

export interface EngineResult {
  hits: EngineHit[];
  total: number;
}

export interface Suggestion {
  text: string;
  kind: 'title' | 'term';
  documentId: number;
}

/**
 * Relevance settings an administrator can change at run time. Synonym groups match each other
 * both ways (`[["k8s", "kubernetes"]]`: either finds both); stop words are dropped from queries;
 * `typoTolerance: false` turns fuzzy matching off.
 */
export interface SearchSettings { synonyms: string[][]; stopWords: string[]; typoTolerance: boolean }

/** Until settings are applied: no synonyms, no stop words, typos tolerated. */
export const DEFAULT_SETTINGS: SearchSettings = { synonyms: [], stopWords: [], typoTolerance: true };

/** What the search service needs from an index; the embedded engine and Meilisearch both pass one contract suite. */
export interface SearchEngine {
  readonly name: 'embedded' | 'meilisearch';
  /** True when the index outlives the process (no rebuild needed at start). */
  readonly persistent: boolean;
  init(): Promise<void>;
  /** Replaces the relevance settings; later searches use them. */
  applySettings(settings: SearchSettings): Promise<void>;
  upsert(docs: SearchDoc[]): Promise<void>;
  remove(ids: number[]): Promise<void>;
  clear(): Promise<void>;
  /** Builds a fresh index from `batches` and only then puts it in place of the current one; returns how many documents it holds. */
  replaceAll(batches: AsyncIterable<SearchDoc[]>): Promise<number>;
  count(): Promise<number>;
  search(query: EngineQuery): Promise<EngineResult>;
  /** As-you-type completions: matching titles first, then completed terms. */
  suggest(q: string, limit: number): Promise<Suggestion[]>;
  close(): Promise<void>;
}
