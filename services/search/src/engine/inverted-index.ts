import { normalizeTerm, words } from './text';
import { TermDictionary } from './term-dictionary';
import { Postings } from './postings';

import type { SearchDoc } from './types';

/** Title, tags and category counts share one number while counting (8 + 4 + 4 bits, saturating), as in the postings. */
const TITLE_UNIT = 1 << 16;
const TAGS_UNIT = 1 << 24;
const CATEGORY_UNIT = 1 << 28;
const TITLE_MASK = 0xff << 16;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Adds `unit` to `counts` for every term of `text` (saturating each field's bits) and returns how
 * many terms it has. ASCII text is lower-cased once instead of word by word.
 */
function countTerms(text: string, counts: Map<string, number>, unit: number): number {
  const ascii = ASCII.test(text);
  const found = words(ascii ? text.toLowerCase() : text);
  const max = unit === 1 ? 0xffff : unit === TITLE_UNIT ? 0xff : 0xf;
  let n = 0;
  for (let i = 0; i < found.length; i++) {
    const term = ascii ? found[i] : normalizeTerm(found[i]);
    if (!term) continue;
    n++;
    const c = counts.get(term) ?? 0;
    if (Math.floor(c / unit) % (max + 1) < max) counts.set(term, c + unit);
    else if (!counts.has(term)) counts.set(term, c);
  }
  return n;
}

/** Text count (clamped to 16 bits) with the packed title/tags/category counts. */
function packCounts(text: number, other: number): number {
  return (Math.min(text, 0xffff) | other) >>> 0;
}

/** Field-length sums over live documents, for BM25's length normalisation. */
export interface FieldTotals {
  title: number;
  tags: number;
  category: number;
  text: number;
}

/**
 * The embedded engine's storage. Every stored version of a document gets a slot (a dense
 * number); an update retires the old slot and takes a new one, so postings only ever grow at
 * their end and stay sorted. Retired slots are skipped while scoring and squeezed out by
 * `compact()` once they are a fifth of all slots. Per slot, the values filters and sorts need
 * live in typed arrays: no object is touched to filter or order 20,000 documents.
 */
export class InvertedIndex {
  readonly terms = new TermDictionary();
  /** Title words only: the dictionary suggestions complete titles from. */
  readonly titleTerms = new TermDictionary();
  docs: Array<SearchDoc | undefined> = [];
  alive = new Uint8Array(1024);
  updatedAt = new Float64Array(1024);
  createdAt = new Float64Array(1024);
  ids = new Int32Array(1024);
  categoryOf = new Int32Array(1024);
  tagsOf: Array<number[]> = [];
  lenTitle = new Uint16Array(1024);
  lenTags = new Uint16Array(1024);
  lenCategory = new Uint16Array(1024);
  lenText = new Uint32Array(1024);
  /** Slots in use (live or retired). */
  size = 0;
  live = 0;
  readonly totals: FieldTotals = { title: 0, tags: 0, category: 0, text: 0 };
  private readonly slotOf = new Map<number, number>();
  /** Scratch per added document: term → count in the text, and term → title/tags/category counts packed. */
  private readonly textCounts = new Map<string, number>();
  private readonly shortCounts = new Map<string, number>();
  /** Normalized category/tag → a small number (filters compare numbers). */
  readonly labels = new Map<string, number>();
  /** Per category/tag number, the slots that carry it: a filter is the union of a few of these. */
  readonly labelSlots = new Map<number, Postings>();
  /** Raised by every change: caches derived from the slots (title order) check it. */
  generation = 0;
  /** Raised by every compaction (slots renumbered, posting positions moved). */
  compactions = 0;

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  get(id: number): SearchDoc | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.docs[slot];
  }

  /** The number of a category (`c`) or tag (`t`); the two never share one. */
  labelId(label: string, kind: 'c' | 't'): number | undefined {
    return this.labels.get(kind + normalizeTerm(label));
  }

  add(doc: SearchDoc): void {
    this.remove(doc.id);
    const slot = this.size++;
    this.ensure(slot + 1);
    this.slotOf.set(doc.id, slot);
    this.docs[slot] = doc;
    this.alive[slot] = 1;
    this.live++;
    this.generation++;
    this.ids[slot] = doc.id;
    this.updatedAt[slot] = doc.updatedAt;
    this.createdAt[slot] = doc.createdAt;
    this.categoryOf[slot] = this.label(doc.category, 'c');
    this.tagsOf[slot] = [...new Set(doc.tags.map((t) => this.label(t, 't')))];
    for (const l of new Set([this.categoryOf[slot], ...this.tagsOf[slot]])) this.slotsOf(l).push(slot, 0);

    const text = this.textCounts;
    const short = this.shortCounts;
    text.clear();
    short.clear();
    const lenText = countTerms(doc.text, text, 1);
    const lenTitle = countTerms(doc.title, short, TITLE_UNIT);
    const lenTags = countTerms(doc.tags.join(' '), short, TAGS_UNIT);
    const lenCategory = countTerms(doc.category, short, CATEGORY_UNIT);
    this.lenText[slot] = lenText;
    this.lenTitle[slot] = Math.min(lenTitle, 0xffff);
    this.lenTags[slot] = Math.min(lenTags, 0xffff);
    this.lenCategory[slot] = Math.min(lenCategory, 0xffff);
    this.totals.text += lenText;
    this.totals.title += lenTitle;
    this.totals.tags += lenTags;
    this.totals.category += lenCategory;
    for (const [term, n] of text) {
      const other = short.get(term) ?? 0;
      this.terms.add(term).push(slot, packCounts(n, other));
      if (other & TITLE_MASK) this.titleTerms.add(term).push(slot, packCounts(0, other & TITLE_MASK));
    }
    for (const [term, other] of short) {
      if (text.has(term)) continue;
      this.terms.add(term).push(slot, packCounts(0, other));
      if (other & TITLE_MASK) this.titleTerms.add(term).push(slot, packCounts(0, other & TITLE_MASK));
    }
  }

  remove(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.alive[slot] = 0;
    this.docs[slot] = undefined;
    this.live--;
    this.generation++;
    this.totals.text -= this.lenText[slot];
    this.totals.title -= this.lenTitle[slot];
    this.totals.tags -= this.lenTags[slot];
    this.totals.category -= this.lenCategory[slot];
    if (this.size - this.live > 1_000 && this.size - this.live > this.size / 5) this.compact();
    return true;
  }

  /** Renumbers live slots densely and drops retired ones from every posting list. */
  compact(): void {
    const renumber = new Int32Array(this.size).fill(-1);
    let next = 0;
    for (let s = 0; s < this.size; s++) if (this.alive[s]) renumber[s] = next++;
    for (const p of this.terms.postings.values()) p.compact(renumber);
    for (const p of this.titleTerms.postings.values()) p.compact(renumber);
    for (const p of this.labelSlots.values()) p.compact(renumber);
    this.terms.prune();
    this.titleTerms.prune();
    const move = <T extends { [i: number]: number }>(a: T) => {
      for (let s = 0; s < this.size; s++) if (renumber[s] >= 0) a[renumber[s]] = a[s];
    };
    for (const a of [this.alive, this.updatedAt, this.createdAt, this.ids, this.categoryOf, this.lenTitle, this.lenTags, this.lenCategory, this.lenText]) move(a);
    const docs: Array<SearchDoc | undefined> = [];
    const tags: number[][] = [];
    for (let s = 0; s < this.size; s++) {
      if (renumber[s] < 0) continue;
      docs[renumber[s]] = this.docs[s];
      tags[renumber[s]] = this.tagsOf[s];
      this.slotOf.set(this.ids[renumber[s]], renumber[s]);
    }
    this.alive.fill(0, next);
    this.docs = docs;
    this.tagsOf = tags;
    this.size = next;
    this.generation++;
    this.compactions++;
  }

  private slotsOf(label: number): Postings {
    let p = this.labelSlots.get(label);
    if (!p) this.labelSlots.set(label, (p = new Postings()));
    return p;
  }

  /** Trims every posting list to its length (after a bulk build, growth leaves slack). */
  trim(): void {
    for (const p of this.terms.postings.values()) p.trim();
    for (const p of this.titleTerms.postings.values()) p.trim();
    for (const p of this.labelSlots.values()) p.trim();
  }

  private label(value: string, kind: 'c' | 't'): number {
    const key = kind + normalizeTerm(value);
    let id = this.labels.get(key);
    if (id === undefined) this.labels.set(key, (id = this.labels.size + 1));
    return id;
  }

  private ensure(n: number): void {
    if (n <= this.alive.length) return;
    const size = Math.max(n, this.alive.length * 2);
    const grow = <T extends Uint8Array | Float64Array | Int32Array | Uint16Array | Uint32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.alive = grow(this.alive);
    this.updatedAt = grow(this.updatedAt);
    this.createdAt = grow(this.createdAt);
    this.ids = grow(this.ids);
    this.categoryOf = grow(this.categoryOf);
    this.lenTitle = grow(this.lenTitle);
    this.lenTags = grow(this.lenTags);
    this.lenCategory = grow(this.lenCategory);
    this.lenText = grow(this.lenText);
  }
}
