import MiniSearch, { type SearchResult } from 'minisearch';
import { highlightAll, snippet } from './highlight';
import { normalizeTerm } from './text';
import { FIELD_BOOST, prefixAllowed, typosAllowed } from './query-policy';
import type { EngineHit, EngineQuery, EngineResult, SearchDoc, SearchEngine, SortKey, Suggestion } from './types';

const FIELDS = ['title', 'text', 'tags', 'category'];

const compare: Record<Exclude<SortKey, 'relevance'>, (a: SearchDoc, b: SearchDoc) => number> = {
  updated_desc: (a, b) => b.updatedAt - a.updatedAt || b.id - a.id,
  updated_asc: (a, b) => a.updatedAt - b.updatedAt || a.id - b.id,
  created_desc: (a, b) => b.createdAt - a.createdAt || b.id - a.id,
  created_asc: (a, b) => a.createdAt - b.createdAt || a.id - b.id,
  title_asc: (a, b) => a.title.localeCompare(b.title) || a.id - b.id,
};

/**
 * The default engine: MiniSearch in memory (chosen by measurement, see docs/search.md), rebuilt
 * from the docs service at start. Multi-word queries match all words; when that finds nothing,
 * any word.
 */
export class EmbeddedEngine implements SearchEngine {
  readonly name = 'embedded' as const;
  readonly persistent = false;
  private readonly docs = new Map<number, SearchDoc>();
  private mini = EmbeddedEngine.newIndex();

  private static newIndex(): MiniSearch<SearchDoc> {
    return new MiniSearch<SearchDoc>({
      fields: FIELDS,
      idField: 'id',
      extractField: (doc, field) => (field === 'tags' ? doc.tags.join(' ') : (doc as unknown as Record<string, unknown>)[field]),
      processTerm: (term) => normalizeTerm(term) || null,
    });
  }

  async init(): Promise<void> {}

  async upsert(docs: SearchDoc[]): Promise<void> {
    for (const doc of docs) {
      if (this.docs.has(doc.id)) this.mini.discard(doc.id);
      this.docs.set(doc.id, doc);
    }
    this.mini.addAll(docs);
  }

  async remove(ids: number[]): Promise<void> {
    for (const id of ids) {
      if (!this.docs.delete(id)) continue;
      this.mini.discard(id);
    }
    if (this.mini.dirtCount > 1000 && this.mini.dirtFactor > 0.2) this.mini.vacuum();
  }

  async clear(): Promise<void> {
    this.docs.clear();
    this.mini = EmbeddedEngine.newIndex();
  }

  async replaceAll(batches: AsyncIterable<SearchDoc[]>): Promise<number> {
    const fresh = new EmbeddedEngine();
    for await (const batch of batches) await fresh.upsert(batch);
    this.mini = fresh.mini;
    this.docs.clear();
    for (const [id, doc] of fresh.docs) this.docs.set(id, doc);
    return this.docs.size;
  }

  async count(): Promise<number> {
    return this.docs.size;
  }

  async search(query: EngineQuery): Promise<EngineResult> {
    const filter = this.filterFor(query);
    const q = query.q.trim();
    let results: Array<{ doc: SearchDoc; score: number; terms: string[] }>;
    if (!q) {
      results = [...this.docs.values()].filter((d) => filter(d.id)).map((doc) => ({ doc, score: 0, terms: [] }));
      if (query.sort === 'relevance') results.sort((a, b) => b.doc.updatedAt - a.doc.updatedAt || b.doc.id - a.doc.id);
    } else {
      let found = this.run(q, 'AND', filter);
      if (found.length === 0 && q.split(/\s+/).length > 1) found = this.run(q, 'OR', filter);
      results = found.map((r) => ({ doc: this.docs.get(r.id as number)!, score: r.score, terms: r.terms }));
    }
    const sort = query.sort;
    if (sort !== 'relevance') results.sort((a, b) => compare[sort](a.doc, b.doc));
    const page = results.slice(query.offset, query.offset + query.limit);
    return { total: results.length, hits: page.map((r) => toHit(r.doc, r.score, r.terms)) };
  }

  async suggest(q: string, limit: number): Promise<Suggestion[]> {
    const text = q.trim();
    if (!text) return [];
    const prefix = (t: string, i: number, all: string[]) => prefixAllowed(t, i, all, 1);
    const results = this.mini.search(text, { fields: ['title', 'text', 'tags'], boost: { title: FIELD_BOOST.title }, prefix, fuzzy: (t) => typosAllowed(t), combineWith: 'AND' });
    const inTitle = (r: SearchResult) => Object.values(r.match).some((fields) => fields.includes('title'));
    const titles: Suggestion[] = results
      .filter(inTitle)
      .slice(0, Math.ceil(limit / 2))
      .map((r) => ({ text: this.docs.get(r.id as number)!.title, kind: 'title', documentId: r.id as number }));
    const seen = new Set(titles.map((s) => s.text.toLowerCase()));
    const terms = completions(text, results)
      .filter((t) => !seen.has(t))
      .slice(0, limit - titles.length)
      .map((t): Suggestion => ({ text: t, kind: 'term', documentId: 0 }));
    return [...titles, ...terms];
  }

  async close(): Promise<void> {}

  private run(q: string, combineWith: 'AND' | 'OR', filter: (id: number) => boolean): SearchResult[] {
    return this.mini.search(q, {
      boost: { title: FIELD_BOOST.title, tags: FIELD_BOOST.tags, category: FIELD_BOOST.category },
      fuzzy: (term) => typosAllowed(term),
      prefix: (term, i, terms) => prefixAllowed(term, i, terms),
      combineWith,
      filter: (r) => filter(r.id as number),
    });
  }

  private filterFor(query: EngineQuery): (id: number) => boolean {
    const categories = new Set(query.categories.map(normalizeTerm));
    const tags = new Set(query.tags.map(normalizeTerm));
    return (id) => {
      const d = this.docs.get(id);
      if (!d) return false;
      if (categories.size > 0 && !categories.has(normalizeTerm(d.category))) return false;
      if (tags.size > 0 && !d.tags.some((t) => tags.has(normalizeTerm(t)))) return false;
      if (query.updatedFrom !== undefined && d.updatedAt < query.updatedFrom) return false;
      if (query.updatedTo !== undefined && d.updatedAt >= query.updatedTo) return false;
      return true;
    };
  }
}

/**
 * Completions of the last typed word: the matched document terms that start with it (any
 * matched term when a typo left none), best-scoring first, after the words typed before it.
 */
export function completions(typed: string, results: SearchResult[]): string[] {
  const words = typed.trim().split(/\s+/);
  const last = normalizeTerm(words[words.length - 1]);
  const head = words.slice(0, -1).map(normalizeTerm);
  const score = new Map<string, number>();
  for (const r of results) for (const term of r.terms) if (!head.includes(term)) score.set(term, (score.get(term) ?? 0) + r.score);
  const all = [...score.keys()];
  const prefixed = all.filter((t) => t.startsWith(last));
  return (prefixed.length > 0 ? prefixed : all).sort((a, b) => score.get(b)! - score.get(a)! || a.localeCompare(b)).map((t) => [...head, t].join(' '));
}

function toHit(doc: SearchDoc, score: number, matched: string[]): EngineHit {
  const terms = new Set(matched);
  return {
    id: doc.id,
    slug: doc.slug,
    title: doc.title,
    titleHighlighted: highlightAll(doc.title, terms),
    snippet: snippet(doc.text, terms),
    category: doc.category,
    tags: doc.tags,
    authorAccountId: doc.authorAccountId,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    score,
  };
}
