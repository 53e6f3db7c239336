/**
 * One term's postings: the document slots that hold it, ascending, and per slot its counts in
 * each field packed into 32 bits (text 16 bits, title 8, tags 4, category 4; each clamped).
 * Typed arrays rather than objects: scoring walks them in a tight loop without garbage.
 */
export class Postings {
  slots: Int32Array;
  counts: Uint32Array;
  length = 0;

  constructor(capacity = 2) {
    this.slots = new Int32Array(capacity);
    this.counts = new Uint32Array(capacity);
  }

  push(slot: number, packed: number): void {
    if (this.length === this.slots.length) {
      const size = Math.max(4, Math.ceil(this.length * 1.5));
      const slots = new Int32Array(size);
      slots.set(this.slots);
      const counts = new Uint32Array(size);
      counts.set(this.counts);
      this.slots = slots;
      this.counts = counts;
    }
    this.slots[this.length] = slot;
    this.counts[this.length] = packed;
    this.length++;
  }

  trim(): void {
    if (this.slots.length === this.length) return;
    this.slots = this.slots.slice(0, this.length);
    this.counts = this.counts.slice(0, this.length);
  }

  /** Whether `slot` is among the postings (binary search; slots are ascending). */
  has(slot: number): boolean {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.slots[mid];
      if (v === slot) return true;
      if (v < slot) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Keeps only slots that `renumber` maps to a new slot (≥ 0), renumbered; order is kept because the mapping is monotonic. */
  compact(renumber: Int32Array): void {
    let w = 0;
    for (let r = 0; r < this.length; r++) {
      const to = renumber[this.slots[r]];
      if (to < 0) continue;
      this.slots[w] = to;
      this.counts[w] = this.counts[r];
      w++;
    }
    this.length = w;
    if (w < this.slots.length / 4) {
      this.slots = this.slots.slice(0, Math.max(2, w));
      this.counts = this.counts.slice(0, Math.max(2, w));
    }
  }
}

export const pack = (text: number, title: number, tags: number, category: number): number =>
  (Math.min(text, 0xffff) | (Math.min(title, 0xff) << 16) | (Math.min(tags, 0xf) << 24) | (Math.min(category, 0xf) << 28)) >>> 0;
export const textCount = (p: number) => p & 0xffff;
export const titleCount = (p: number) => (p >>> 16) & 0xff;
export const tagsCount = (p: number) => (p >>> 24) & 0xf;
export const categoryCount = (p: number) => p >>> 28;
