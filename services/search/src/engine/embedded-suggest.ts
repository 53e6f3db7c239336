import type { CompiledSettings, Expansion } from './embedded-engine';
import type { InvertedIndex } from './inverted-index';
import { typosAllowed } from './query-policy';
import { normalizeTerm, words } from './text';
import type { Suggestion } from './types';

/** How many title words one typed prefix is completed to, and how many documents are looked at for titles. */
const TITLE_PREFIX_CAP = 30;
const TITLE_SLOTS_CAP = 2_000;
const TERM_CANDIDATES_CAP = 60;

/**
 * As-you-type suggestions from the index's dictionaries, no scoring pass: titles containing a
 * word that starts with the last typed word (and every earlier typed word), the most common
 * such words first, newest documents first; then the last word completed to the most frequent
 * terms that start with it (occurring together with the earlier words), or, when nothing
 * starts with it, terms within its typo budget.
 */
export function embeddedSuggest(index: InvertedIndex, settings: CompiledSettings, q: string, limit: number, expand: (term: string, last: boolean) => Expansion[]): Suggestion[] {
  const typed = words(q).map(normalizeTerm).filter(Boolean);
  if (typed.length === 0) return [];
  const last = typed[typed.length - 1];
  const head = typed.slice(0, -1);

  const titles: Suggestion[] = [];
  const seen = new Set<string>();
  let titleWords = index.titleTerms.withPrefix(last, TITLE_PREFIX_CAP);
  const typos = settings.typoTolerance ? typosAllowed(last) : 0;
  if (titleWords.length === 0 && typos > 0) titleWords = index.titleTerms.within(last, typos, TITLE_PREFIX_CAP).map((w) => w.term);
  const exactFirst = titleWords.includes(last) ? [last, ...titleWords.filter((w) => w !== last)] : titleWords;
  let looked = 0;
  outer: for (const w of exactFirst) {
    const p = index.titleTerms.get(w)!;
    for (let j = p.length - 1; j >= 0; j--) {
      if (++looked > TITLE_SLOTS_CAP || titles.length >= Math.ceil(limit / 2)) break outer;
      const s = p.slots[j];
      if (!index.alive[s]) continue;
      const doc = index.docs[s]!;
      const key = doc.title.toLowerCase();
      if (seen.has(key)) continue;
      if (head.length > 0) {
        const inTitle = new Set(words(doc.title).map(normalizeTerm));
        if (!head.every((h) => inTitle.has(h))) continue;
      }
      seen.add(key);
      titles.push({ text: doc.title, kind: 'title', documentId: doc.id });
    }
  }

  const headMatch = head.length > 0 ? documentsWithAll(index, head.map((h) => expand(h, false).filter((e) => e.weight === 1))) : undefined;
  const terms: Suggestion[] = [];
  let completions = index.terms.withPrefix(last, TERM_CANDIDATES_CAP);
  if (completions.length === 0 && typos > 0) completions = index.terms.within(last, typos, TERM_CANDIDATES_CAP).map((w) => w.term);
  for (const t of completions) {
    if (titles.length + terms.length >= limit) break;
    if (head.includes(t)) continue;
    const text = [...head, t].join(' ');
    if (seen.has(text)) continue;
    const postings = index.terms.get(t)!;
    // A term stays in the dictionary until the next compaction: only one a live document holds is offered.
    if (headMatch ? !occursIn(postings, headMatch) : !occursIn(postings, index.alive)) continue;
    seen.add(text);
    terms.push({ text, kind: 'term', documentId: 0 });
  }
  return [...titles, ...terms];
}

/** Slots of live documents matching every group (exact words and synonyms). */
function documentsWithAll(index: InvertedIndex, groups: Expansion[][]): Uint8Array {
  let current: Uint8Array | undefined;
  for (const g of groups) {
    const next = new Uint8Array(index.size);
    for (const e of g) {
      const { slots, length } = e.postings;
      for (let j = 0; j < length; j++) {
        const s = slots[j];
        if (index.alive[s] && (!current || current[s])) next[s] = 1;
      }
    }
    current = next;
  }
  return current ?? new Uint8Array(index.size);
}

function occursIn(p: { slots: Int32Array; length: number }, set: Uint8Array): boolean {
  for (let j = 0; j < p.length; j++) if (set[p.slots[j]]) return true;
  return false;
}
