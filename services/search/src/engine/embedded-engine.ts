import { highlightAll, snippet } from './highlight';
import { Impacts } from './impacts';
import { InvertedIndex } from './inverted-index';
import type { Postings } from './postings';
import { PREFIX_MIN, typosAllowed } from './query-policy';
import { normalizeTerm, words } from './text';
import { topKBy } from './top-k';
import { embeddedSuggest } from './embedded-suggest';
import { DEFAULT_SETTINGS, type EngineHit, type EngineQuery, type EngineResult, type SearchDoc, type SearchEngine, type SearchSettings, type SortKey, type Suggestion } from './types';

/** Most expansions one prefix turns into (the most frequent terms win), and one typo'd word. */
export const PREFIX_CAP = 40;
export const FUZZY_CAP = 12;
/** Words of a query beyond this are ignored. */
export const MAX_QUERY_TERMS = 32;
/** Most postings one prefix expands to (whole terms are taken, most frequent first, at least one). */
export const PREFIX_POSTINGS_CAP = 60_000;
/** How much an expansion counts against the typed word itself. */
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = [1, 0.45, 0.25];

/** One alternative a query word matches: the term, its postings and its weight. */
export interface Expansion {
  term: string;
  postings: Postings;
  weight: number;
}

/** Query words after settings: normalized, stop words dropped (unless nothing would be left), at most MAX_QUERY_TERMS. */
export function queryTerms(q: string, settings: CompiledSettings): string[] {
  const all = [...new Set(words(q).map(normalizeTerm).filter(Boolean))].slice(0, MAX_QUERY_TERMS);
  const kept = all.filter((t) => !settings.stopWords.has(t));
  return kept.length > 0 ? kept : all;
}

export interface CompiledSettings {
  synonyms: Map<string, string[]>;
  stopWords: Set<string>;
  typoTolerance: boolean;
}

export function compileSettings(s: SearchSettings): CompiledSettings {
  const synonyms = new Map<string, string[]>();
  for (const group of s.synonyms) {
    const members = [...new Set(group.map((m) => words(m).map(normalizeTerm).join(' ')).filter(Boolean))];
    for (const m of members) synonyms.set(m, [...new Set([...(synonyms.get(m) ?? []), ...members.filter((o) => o !== m)])]);
  }
  return { synonyms, stopWords: new Set(s.stopWords.flatMap((w) => words(w).map(normalizeTerm))), typoTolerance: s.typoTolerance };
}

/**
 * The default engine: our own in-memory inverted index (see docs/search.md for why and the
 * measurements). Scoring walks typed-array postings into a dense accumulator, with filters
 * applied as a precomputed mask before anything is scored, and keeps the top `offset + limit`
 * in a bounded heap instead of sorting every match. A query word matches itself, its synonyms,
 * words within its typo budget (a transposition is one typo) and, for the last word, the most
 * frequent words it is a prefix of. Multi-word queries match all words; when that finds
 * nothing, any word.
 */
export class EmbeddedEngine implements SearchEngine {
  readonly name = 'embedded' as const;
  readonly persistent = false;
  private index = new InvertedIndex();
  private settings = compileSettings(DEFAULT_SETTINGS);
  private scores = new Float64Array(1024);
  private marks = new Uint8Array(1024);
  private touched = new Int32Array(1024);
  private matched = new Int32Array(1024);
  private titleOrder?: { generation: number; rank: Int32Array };
  private impacts = new Impacts(this.index);

  async init(): Promise<void> {}

  async applySettings(settings: SearchSettings): Promise<void> {
    this.settings = compileSettings(settings);
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    for (const doc of docs) this.index.add(doc);
    this.index.terms.prepare();
    this.index.titleTerms.prepare();
  }

  async remove(ids: number[]): Promise<void> {
    for (const id of ids) this.index.remove(id);
  }

  async clear(): Promise<void> {
    this.index = new InvertedIndex();
  }

  async replaceAll(batches: AsyncIterable<SearchDoc[]>): Promise<number> {
    const fresh = new InvertedIndex();
    for await (const batch of batches) for (const doc of batch) fresh.add(doc);
    fresh.trim();
    fresh.terms.prepare();
    fresh.titleTerms.prepare();
    this.index = fresh;
    return fresh.live;
  }

  async count(): Promise<number> {
    return this.index.live;
  }

  async search(query: EngineQuery): Promise<EngineResult> {
    return this.searchNow(query);
  }

  async suggest(q: string, limit: number): Promise<Suggestion[]> {
    return embeddedSuggest(this.index, this.settings, q, limit, (t, last) => this.expand(t, last));
  }

  async close(): Promise<void> {}

  /** The whole search, synchronous: nothing else runs between scoring and reading the scratch arrays. */
  searchNow(query: EngineQuery): EngineResult {
    const index = this.index;
    this.ensureScratch(index.size);
    const mask = this.filterMask(query);
    const k = query.offset + query.limit;
    const q = query.q.trim();
    if (!q) {
      const candidates = new Int32Array(index.size);
      let count = 0;
      for (let s = 0; s < index.size; s++) if (index.alive[s] && (!mask || mask[s])) candidates[count++] = s;
      const top = this.top(candidates, count, k, query.sort === 'relevance' ? 'updated_desc' : query.sort).slice(query.offset);
      return { total: count, hits: top.map((s) => toHit(index.docs[s]!, 0, new Set())) };
    }
    const terms = queryTerms(q, this.settings);
    if (terms.length === 0) return { total: 0, hits: [] };
    const groups = terms.map((t, i) => this.expand(t, i === terms.length - 1));
    let matched = this.score(groups, mask, true);
    if (matched.count === 0 && groups.length > 1) {
      this.reset(matched);
      matched = this.score(groups, mask, false);
    }
    const scores = this.scores;
    const top = this.top(this.matched, matched.count, k, query.sort).slice(query.offset);
    const hits = top.map((s) => {
      const found = new Set<string>();
      for (const g of groups) for (const e of g) if (e.postings.has(s)) found.add(e.term);
      return toHit(index.docs[s]!, Math.round(scores[s] * 1000) / 1000, found);
    });
    this.reset(matched);
    return { total: matched.count, hits };
  }

  private reset(matched: Matched): void {
    const { scores, marks, touched } = this;
    // Past an eighth of the slots, clearing everything in one pass is cheaper than visiting each touched slot.
    if (matched.touched > this.index.size / 8) {
      scores.fill(0, 0, this.index.size);
      marks.fill(0, 0, this.index.size);
      return;
    }
    for (let i = 0; i < matched.touched; i++) {
      const s = touched[i];
      scores[s] = 0;
      marks[s] = 0;
    }
  }

  /** What one query word matches: itself, its synonyms, words within its typo budget and (last word) what it is a prefix of. */
  expand(term: string, last: boolean): Expansion[] {
    const dict = this.index.terms;
    const out = new Map<string, Expansion>();
    const add = (t: string, weight: number) => {
      const postings = dict.get(t);
      if (!postings || postings.length === 0) return;
      const known = out.get(t);
      if (!known || known.weight < weight) out.set(t, { term: t, postings, weight });
    };
    add(term, 1);
    for (const syn of this.settings.synonyms.get(term) ?? []) add(syn, 1);
    if (last && term.length >= PREFIX_MIN) {
      let budget = PREFIX_POSTINGS_CAP - (dict.get(term)?.length ?? 0);
      for (const t of dict.withPrefix(term, PREFIX_CAP)) {
        if (t === term) continue;
        const df = dict.df(t);
        if (df > budget && out.size > 0) continue;
        budget -= df;
        add(t, PREFIX_WEIGHT * (0.5 + (0.5 * term.length) / t.length));
      }
    }
    const typos = this.settings.typoTolerance ? typosAllowed(term) : 0;
    if (typos > 0) for (const { term: t, distance } of dict.within(term, typos, FUZZY_CAP)) add(t, TYPO_WEIGHT[distance]);
    return [...out.values()];
  }

  /**
   * BM25 per field, weighted by field boost (a posting's impact, see Impacts), times the idf and
   * weight of the expansion, summed over a word's expansions. With `all`, a document must match
   * every group: the group with the fewest postings goes first and later groups only add to
   * documents still in the running. Returns how many documents were touched (their slots are the
   * first `touched` of this.touched, to reset) and how many matched (the first `count` of this.matched).
   */
  private score(groups: Expansion[][], mask: Uint8Array | undefined, all: boolean): Matched {
    const index = this.index;
    if (this.impacts.index !== index) this.impacts = new Impacts(index);
    const n = Math.max(1, index.live);
    const size = (g: Expansion[]) => g.reduce((a, e) => a + e.postings.length, 0);
    const every = all && groups.length > 1;
    const ordered = every ? [...groups].sort((a, b) => size(a) - size(b)) : groups;
    // Slots are checked for being alive only while retired ones exist.
    const retired = index.live < index.size ? index.alive : undefined;
    let touched = 0;
    for (let g = 0; g < ordered.length; g++) {
      for (const e of ordered[g]) {
        const idf = Math.log(1 + (n - e.postings.length + 0.5) / (e.postings.length + 0.5)) * e.weight;
        const impact = this.impacts.of(e.postings);
        touched = every
          ? addEvery(e.postings, impact, idf, retired, mask, this.scores, this.marks, this.touched, touched, g)
          : addAny(e.postings, impact, idf, retired, mask, this.scores, this.marks, this.touched, touched);
      }
      if (every && g === 0 && touched === 0) break;
    }
    const wanted = every ? ordered.length : 1;
    if (wanted === 1) {
      this.matched.set(this.touched.subarray(0, touched));
      return { touched, count: touched };
    }
    let count = 0;
    for (let i = 0; i < touched; i++) if (this.marks[this.touched[i]] >= wanted) this.matched[count++] = this.touched[i];
    return { touched, count };
  }

  /**
   * Documents passing the filters as a byte per slot, computed before scoring from the slot
   * lists of the wanted categories and tags (any of each) and the dates; undefined when nothing
   * is filtered.
   */
  private filterMask(query: EngineQuery): Uint8Array | undefined {
    const index = this.index;
    const filtered = query.categories.length > 0 || query.tags.length > 0 || query.updatedFrom !== undefined || query.updatedTo !== undefined;
    if (!filtered) return undefined;
    const size = index.size;
    const bits = new Uint8Array(size);
    const mark = (labels: string[], kind: 'c' | 't', bit: number) => {
      for (const label of new Set(labels.map((l) => index.labelId(l, kind)))) {
        const p = label === undefined ? undefined : index.labelSlots.get(label);
        if (!p) continue;
        for (let j = 0; j < p.length; j++) bits[p.slots[j]] |= bit;
      }
    };
    let need = 0;
    if (query.categories.length > 0) {
      mark(query.categories, 'c', 1);
      need |= 1;
    }
    if (query.tags.length > 0) {
      mark(query.tags, 't', 2);
      need |= 2;
    }
    const from = query.updatedFrom ?? -Infinity;
    const to = query.updatedTo ?? Infinity;
    const { alive, updatedAt } = index;
    for (let s = 0; s < size; s++) {
      const u = updatedAt[s];
      bits[s] = (bits[s] & need) === need && alive[s] === 1 && u >= from && u < to ? 1 : 0;
    }
    return bits;
  }

  /** The first `k` slots in the order of `sort` (relevance: score, then newest id). */
  private top(slots: Int32Array, count: number, k: number, sort: SortKey): number[] {
    const { updatedAt, createdAt, ids } = this.index;
    switch (sort) {
      case 'relevance':
        return topKBy(slots, count, k, this.scores, true, ids, true);
      case 'updated_desc':
        return topKBy(slots, count, k, updatedAt, true, ids, true);
      case 'updated_asc':
        return topKBy(slots, count, k, updatedAt, false, ids, false);
      case 'created_desc':
        return topKBy(slots, count, k, createdAt, true, ids, true);
      case 'created_asc':
        return topKBy(slots, count, k, createdAt, false, ids, false);
      case 'title_asc':
        return topKBy(slots, count, k, this.titleRank(), false, ids, false);
    }
  }

  /** Every slot's place in title order (locale-aware, then id), computed once per index change. */
  private titleRank(): Int32Array {
    const index = this.index;
    if (this.titleOrder?.generation === index.generation && this.titleOrder.rank.length >= index.size) return this.titleOrder.rank;
    const collator = new Intl.Collator();
    const slots: number[] = [];
    for (let s = 0; s < index.size; s++) if (index.alive[s]) slots.push(s);
    slots.sort((a, b) => collator.compare(index.docs[a]!.title, index.docs[b]!.title) || index.ids[a] - index.ids[b]);
    const rank = new Int32Array(index.size);
    slots.forEach((s, i) => (rank[s] = i));
    this.titleOrder = { generation: index.generation, rank };
    return rank;
  }

  private ensureScratch(size: number): void {
    if (this.scores.length >= size) return;
    const n = Math.max(size, this.scores.length * 2);
    this.scores = new Float64Array(n);
    this.marks = new Uint8Array(n);
    this.touched = new Int32Array(n);
    this.matched = new Int32Array(n);
  }
}

/** How many slots a scoring pass touched and how many of them matched. */
interface Matched {
  touched: number;
  count: number;
}

/** Adds one expansion's scores to every live, unfiltered document; a document touched for the first time is listed. Returns the new touched count. */
function addAny(postings: Postings, impact: Float32Array, idf: number, alive: Uint8Array | undefined, mask: Uint8Array | undefined, scores: Float64Array, marks: Uint8Array, touched: Int32Array, nTouched: number): number {
  const slots = postings.slots;
  const length = postings.length;
  for (let j = 0; j < length; j++) {
    const s = slots[j];
    if ((alive !== undefined && alive[s] === 0) || (mask !== undefined && mask[s] === 0)) continue;
    if (marks[s] === 0) {
      marks[s] = 1;
      touched[nTouched++] = s;
    }
    scores[s] += idf * impact[j];
  }
  return nTouched;
}

/**
 * The same for the `group`-th word of an all-words query: only documents that matched every
 * earlier word (mark = group) or this word already (mark = group + 1) are scored.
 */
function addEvery(postings: Postings, impact: Float32Array, idf: number, alive: Uint8Array | undefined, mask: Uint8Array | undefined, scores: Float64Array, marks: Uint8Array, touched: Int32Array, nTouched: number, group: number): number {
  const slots = postings.slots;
  const length = postings.length;
  const next = group + 1;
  for (let j = 0; j < length; j++) {
    const s = slots[j];
    if ((alive !== undefined && alive[s] === 0) || (mask !== undefined && mask[s] === 0)) continue;
    const m = marks[s];
    if (m === group) {
      if (group === 0) touched[nTouched++] = s;
      marks[s] = next;
    } else if (m !== next) continue;
    scores[s] += idf * impact[j];
  }
  return nTouched;
}

function toHit(doc: SearchDoc, score: number, terms: ReadonlySet<string>): EngineHit {
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
