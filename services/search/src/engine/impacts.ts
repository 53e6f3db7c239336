import type { InvertedIndex } from './inverted-index';
import type { Postings } from './postings';
import { FIELD_BOOST } from './query-policy';

export const K1 = 1.2;
export const B = 0.75;
/** How far (relative) an average field length may move before every norm and impact is recomputed. */
export const AVERAGE_DRIFT = 0.01;

const W_TEXT = FIELD_BOOST.text * (K1 + 1);
const W_TITLE = FIELD_BOOST.title * (K1 + 1);
const W_TAGS = FIELD_BOOST.tags * (K1 + 1);
const W_CATEGORY = FIELD_BOOST.category * (K1 + 1);

interface Norms {
  text: Float32Array;
  title: Float32Array;
  tags: Float32Array;
  category: Float32Array;
}

interface TermImpacts {
  epoch: number;
  /** Postings whose impact is in `values` (postings only grow at their end between compactions). */
  upTo: number;
  values: Float32Array;
}

/**
 * Each posting's BM25 contribution before its term's idf: per field the saturated term count
 * (k1 + 1)·tf / (tf + k1·(1 − b + b·len/avg)), weighted by the field's boost and summed. Scoring
 * a query then costs one multiply-add per posting. Impacts are computed the first time a term
 * is scored and kept; documents added since are computed on the next use. They are recomputed
 * as a whole only when the index is compacted or an average field length has moved by more than
 * AVERAGE_DRIFT since they were computed: BM25 with averages that are at most 1 % stale.
 */
export class Impacts {
  private epoch = 0;
  private compactions = -1;
  private averages = { text: 0, title: 0, tags: 0, category: 0 };
  private normsUpTo = 0;
  /** The index's size and live count when last refreshed: every add grows the one, every removal shrinks the other. */
  private seen = { size: -1, live: -1 };
  private norms: Norms = { text: new Float32Array(0), title: new Float32Array(0), tags: new Float32Array(0), category: new Float32Array(0) };
  private readonly terms = new WeakMap<Postings, TermImpacts>();

  constructor(readonly index: InvertedIndex) {}

  /** The impacts of every posting of `postings`, in posting order. */
  of(postings: Postings): Float32Array {
    this.refresh();
    let known = this.terms.get(postings);
    if (!known || known.epoch !== this.epoch) {
      known = { epoch: this.epoch, upTo: 0, values: new Float32Array(postings.length) };
      this.terms.set(postings, known);
    }
    if (known.upTo < postings.length) {
      if (known.values.length < postings.length) {
        const grown = new Float32Array(Math.max(postings.length, Math.ceil(known.values.length * 1.5)));
        grown.set(known.values.subarray(0, known.upTo));
        known.values = grown;
      }
      this.compute(postings, known.upTo, known.values);
      known.upTo = postings.length;
    }
    return known.values;
  }

  private compute(postings: Postings, from: number, out: Float32Array): void {
    const { text, title, tags, category } = this.norms;
    const slots = postings.slots;
    const counts = postings.counts;
    for (let j = from; j < postings.length; j++) {
      const s = slots[j];
      const c = counts[j];
      const tx = c & 0xffff;
      let sc = tx === 0 ? 0 : (W_TEXT * tx) / (tx + text[s]);
      if (c > 0xffff) {
        const ti = (c >>> 16) & 0xff;
        if (ti !== 0) sc += (W_TITLE * ti) / (ti + title[s]);
        const tg = (c >>> 24) & 0xf;
        if (tg !== 0) sc += (W_TAGS * tg) / (tg + tags[s]);
        const ca = c >>> 28;
        if (ca !== 0) sc += (W_CATEGORY * ca) / (ca + category[s]);
      }
      out[j] = sc;
    }
  }

  /** Norms for every slot: extended for new slots, or recomputed (a new epoch) after a compaction or a drift of the averages. */
  private refresh(): void {
    const index = this.index;
    // Nothing changed since the last term of this (or the previous) query: no averages to compare.
    if (index.size === this.seen.size && index.live === this.seen.live && index.compactions === this.compactions) return;
    this.seen = { size: index.size, live: index.live };
    const now = this.currentAverages();
    const moved = (a: number, b: number) => Math.abs(a - b) > AVERAGE_DRIFT * Math.max(b, 1e-9);
    const stale =
      this.compactions !== index.compactions ||
      moved(now.text, this.averages.text) ||
      moved(now.title, this.averages.title) ||
      moved(now.tags, this.averages.tags) ||
      moved(now.category, this.averages.category);
    if (stale) {
      this.epoch++;
      this.compactions = index.compactions;
      this.averages = now;
      this.normsUpTo = 0;
    }
    if (this.normsUpTo === index.size && this.norms.text.length >= index.size) return;
    if (this.norms.text.length < index.size) {
      const size = Math.max(index.size, Math.ceil(this.norms.text.length * 1.5), 1024);
      const grow = (a: Float32Array) => {
        const b = new Float32Array(size);
        b.set(a.subarray(0, this.normsUpTo));
        return b;
      };
      this.norms = { text: grow(this.norms.text), title: grow(this.norms.title), tags: grow(this.norms.tags), category: grow(this.norms.category) };
    }
    const avg = this.averages;
    const fill = (out: Float32Array, lens: ArrayLike<number>, average: number) => {
      const a = average || 1;
      for (let s = this.normsUpTo; s < index.size; s++) out[s] = K1 * (1 - B + (B * lens[s]) / a);
    };
    fill(this.norms.text, index.lenText, avg.text);
    fill(this.norms.title, index.lenTitle, avg.title);
    fill(this.norms.tags, index.lenTags, avg.tags);
    fill(this.norms.category, index.lenCategory, avg.category);
    this.normsUpTo = index.size;
  }

  private currentAverages(): { text: number; title: number; tags: number; category: number } {
    const n = Math.max(1, this.index.live);
    const t = this.index.totals;
    return { text: t.text / n, title: t.title / n, tags: t.tags / n, category: t.category / n };
  }
}
