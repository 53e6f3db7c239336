import type { Hit, SearchParams, Settings } from 'meilisearch';
import { escapeHtml } from '../engine/text';
import { MARK_CLOSE, MARK_OPEN, SNIPPET_CHARS } from '../engine/highlight';
import { FIELD_BOOST, TYPO_MIN_ONE, TYPO_MIN_TWO } from '../engine/query-policy';
import type { EngineHit, EngineQuery, SearchDoc, SearchSettings, SortKey, Suggestion } from '../engine/types';

/** How a document is stored in Meilisearch (snake_case attributes, dates as epoch ms for range filters). */
export interface MeiliDocument {
  id: number;
  slug: string;
  title: string;
  text: string;
  category: string;
  tags: string[];
  author_account_id: number;
  created_at: number;
  updated_at: number;
}

/** Matches come back between these private markers; they are turned into <mark> after escaping. */
export const PRE = '\u0001';
export const POST = '\u0002';

const SEARCHABLE = (Object.keys(FIELD_BOOST) as Array<keyof typeof FIELD_BOOST>).sort((a, b) => FIELD_BOOST[b] - FIELD_BOOST[a]);

/** Index settings: searchable attributes in boost order, filters, sorts, typo tolerance like the embedded engine. */
export const MEILI_SETTINGS: Settings = {
  searchableAttributes: SEARCHABLE,
  filterableAttributes: ['category', 'tags', 'updated_at', 'created_at', 'author_account_id'],
  sortableAttributes: ['updated_at', 'created_at', 'title', 'id'],
  displayedAttributes: ['id', 'slug', 'title', 'text', 'category', 'tags', 'author_account_id', 'created_at', 'updated_at'],
  typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: TYPO_MIN_ONE, twoTypos: TYPO_MIN_TWO } },
  pagination: { maxTotalHits: 100_000 },
};

/**
 * Our relevance settings as Meilisearch settings: each synonym group becomes a mutual map (every
 * member lists the others, so matching works both ways), stop words as given, typo tolerance
 * switched on or off with the same word-size thresholds.
 */
export function meiliRelevanceSettings(s: SearchSettings): Settings {
  const synonyms: Record<string, string[]> = {};
  for (const group of s.synonyms) {
    const members = [...new Set(group.map((m) => m.trim().toLowerCase()).filter(Boolean))];
    for (const m of members) synonyms[m] = [...new Set([...(synonyms[m] ?? []), ...members.filter((o) => o !== m)])];
  }
  return {
    synonyms,
    stopWords: [...new Set(s.stopWords.map((w) => w.trim().toLowerCase()).filter(Boolean))],
    typoTolerance: { ...MEILI_SETTINGS.typoTolerance, enabled: s.typoTolerance },
  };
}

export function toMeiliDocument(doc: SearchDoc): MeiliDocument {
  return {
    id: doc.id,
    slug: doc.slug,
    title: doc.title,
    text: doc.text,
    category: doc.category,
    tags: doc.tags,
    author_account_id: doc.authorAccountId,
    created_at: doc.createdAt,
    updated_at: doc.updatedAt,
  };
}

/** A filter string literal: double-quoted, with quotes and backslashes escaped. */
export function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The query's filters as Meilisearch filter expressions (the array is ANDed; values within one IN are ORed). */
export function meiliFilter(q: Pick<EngineQuery, 'categories' | 'tags' | 'updatedFrom' | 'updatedTo'>): string[] {
  const out: string[] = [];
  if (q.categories.length > 0) out.push(`category IN [${q.categories.map(quote).join(', ')}]`);
  if (q.tags.length > 0) out.push(`tags IN [${q.tags.map(quote).join(', ')}]`);
  if (q.updatedFrom !== undefined) out.push(`updated_at >= ${Math.floor(q.updatedFrom)}`);
  if (q.updatedTo !== undefined) out.push(`updated_at < ${Math.floor(q.updatedTo)}`);
  return out;
}

const SORT: Record<SortKey, string[] | undefined> = {
  relevance: undefined,
  updated_desc: ['updated_at:desc', 'id:desc'],
  updated_asc: ['updated_at:asc', 'id:asc'],
  created_desc: ['created_at:desc', 'id:desc'],
  created_asc: ['created_at:asc', 'id:asc'],
  title_asc: ['title:asc', 'id:asc'],
};

export function meiliSort(sort: SortKey): string[] | undefined {
  return SORT[sort];
}

/** Search parameters for one page: exact totals (page/hitsPerPage), highlighting and a cropped snippet. */
export function meiliSearchParams(q: EngineQuery): SearchParams & { page: number; hitsPerPage: number } {
  const hitsPerPage = Math.max(1, q.limit);
  return {
    filter: meiliFilter(q),
    sort: meiliSort(q.sort),
    page: Math.floor(q.offset / hitsPerPage) + 1,
    hitsPerPage,
    attributesToRetrieve: ['id', 'slug', 'title', 'category', 'tags', 'author_account_id', 'created_at', 'updated_at'],
    attributesToHighlight: ['title', 'text'],
    attributesToCrop: ['text'],
    cropLength: Math.round(SNIPPET_CHARS / 6),
    cropMarker: '…',
    highlightPreTag: PRE,
    highlightPostTag: POST,
    showRankingScore: true,
    matchingStrategy: 'last',
  };
}

/** Text with PRE/POST markers → HTML-escaped text with <mark> around the marked parts. */
export function markedToHtml(marked: string): string {
  return escapeHtml(marked).split(PRE).join(MARK_OPEN).split(POST).join(MARK_CLOSE);
}

export function fromMeiliHit(hit: Hit<MeiliDocument>): EngineHit {
  const formatted = hit._formatted ?? {};
  return {
    id: Number(hit.id),
    slug: hit.slug,
    title: hit.title,
    titleHighlighted: markedToHtml(String(formatted.title ?? hit.title)),
    snippet: markedToHtml(String(formatted.text ?? '')).replace(/\s+/g, ' ').trim(),
    category: hit.category,
    tags: hit.tags,
    authorAccountId: hit.author_account_id,
    createdAt: hit.created_at,
    updatedAt: hit.updated_at,
    score: hit._rankingScore ?? 0,
  };
}

const MARKED_WORD = new RegExp(`[^\\s\\p{P}${PRE}${POST}]*${PRE}[^${POST}]*${POST}[^\\s\\p{P}${PRE}${POST}]*`, 'gu');

/**
 * Completions of the last typed word from highlighted hits: Meilisearch marks only the matched
 * prefix of a word, so the whole word around each mark is taken, and put after the words
 * typed before it.
 */
export function completedTerms(q: string, formattedTexts: string[], limit: number): Suggestion[] {
  const typed = q.trim().split(/\s+/);
  const head = typed.slice(0, -1).join(' ');
  const last = typed[typed.length - 1].toLowerCase();
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  for (const text of formattedTexts) {
    for (const m of text.matchAll(MARKED_WORD)) {
      const word = m[0].split(PRE).join('').split(POST).join('').toLowerCase();
      if (word.length < last.length || seen.has(word)) continue;
      seen.add(word);
      out.push({ text: head ? `${head} ${word}` : word, kind: 'term', documentId: 0 });
      if (out.length >= limit) return out;
    }
  }
  return out;
}
