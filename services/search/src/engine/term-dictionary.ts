import { Postings } from './postings';

/**
 * Terms → postings, plus what expansion needs: the terms in sorted order (a prefix is a
 * contiguous range found by binary search, and the sorted list doubles as a trie for typos).
 */
export class TermDictionary {
  readonly postings = new Map<string, Postings>();
  private sorted: string[] = [];
  private pending: string[] = [];

  get(term: string): Postings | undefined {
    return this.postings.get(term);
  }

  /** The term's postings, created (and the term registered) on first use. */
  add(term: string): Postings {
    let p = this.postings.get(term);
    if (!p) {
      p = new Postings();
      this.postings.set(term, p);
      this.pending.push(term);
    }
    return p;
  }

  /** Terms starting with `prefix` (the term itself included), at most `cap`, most frequent first. */
  withPrefix(prefix: string, cap: number): string[] {
    const sorted = this.sortedTerms();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: string[] = [];
    for (let i = lo; i < sorted.length && sorted[i].startsWith(prefix); i++) found.push(sorted[i]);
    if (found.length <= cap) return found.sort((a, b) => this.df(b) - this.df(a));
    return found.sort((a, b) => this.df(b) - this.df(a)).slice(0, cap);
  }

  /**
   * Terms within `max` edits (a transposition is one), closest and then most frequent first, at
   * most `cap`. Walks the sorted terms as a trie: the edit-distance rows of a shared prefix are
   * computed once, and every term under a prefix that is already more than `max` edits away is
   * skipped with one binary search, so the cost follows the prefixes near the word, not the size
   * of the vocabulary.
   */
  within(term: string, max: number, cap: number): Array<{ term: string; distance: number }> {
    const sorted = this.sortedTerms();
    const m = term.length;
    const found: Array<{ term: string; distance: number }> = [];
    // rows[d] = distances between the first d letters of the current term and every prefix of `term`.
    const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => j)];
    let prev = '';
    let i = 0;
    while (i < sorted.length) {
      const t = sorted[i];
      let d = 0;
      const limit = Math.min(prev.length, t.length, rows.length - 1);
      while (d < limit && prev.charCodeAt(d) === t.charCodeAt(d)) d++;
      let pruned = -1;
      for (let depth = d + 1; depth <= t.length; depth++) {
        const row = rows[depth] ?? (rows[depth] = new Int32Array(m + 1));
        const up = rows[depth - 1];
        const c = t.charCodeAt(depth - 1);
        row[0] = depth;
        let rowMin = depth;
        for (let j = 1; j <= m; j++) {
          const cost = term.charCodeAt(j - 1) === c ? 0 : 1;
          let v = Math.min(up[j] + 1, row[j - 1] + 1, up[j - 1] + cost);
          if (depth > 1 && j > 1 && c === term.charCodeAt(j - 2) && t.charCodeAt(depth - 2) === term.charCodeAt(j - 1)) v = Math.min(v, rows[depth - 2][j - 2] + 1);
          row[j] = v;
          if (v < rowMin) rowMin = v;
        }
        if (rowMin > max) {
          pruned = depth;
          break;
        }
      }
      prev = t;
      if (pruned > 0) {
        // Every term starting with t's first `pruned` letters is out of reach: jump past them.
        const prefix = t.slice(0, pruned);
        let lo = i + 1;
        let hi = sorted.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (sorted[mid].startsWith(prefix) || sorted[mid] < prefix) lo = mid + 1;
          else hi = mid;
        }
        // Rows beyond the pruned depth are stale; make the next term recompute from there.
        prev = t.slice(0, pruned - 1);
        i = lo;
        continue;
      }
      const distance = rows[t.length][m];
      if (distance <= max && t !== term && this.df(t) > 0) found.push({ term: t, distance });
      i++;
    }
    return found.sort((a, b) => a.distance - b.distance || this.df(b.term) - this.df(a.term)).slice(0, cap);
  }

  df(term: string): number {
    return this.postings.get(term)?.length ?? 0;
  }

  /** Drops terms left without postings (after a compaction). */
  prune(): void {
    for (const [term, p] of this.postings) if (p.length === 0) this.postings.delete(term);
    this.sorted = [...this.postings.keys()].sort();
    this.pending = [];
  }

  /** Brings the sorted list up to date now (after a write), so that no query pays for it. */
  prepare(): void {
    this.sortedTerms();
  }

  /** New terms join the sorted list lazily: one by one in place when few, by one merge sort when many. */
  private sortedTerms(): string[] {
    if (this.pending.length === 0) return this.sorted;
    if (this.pending.length > 64) {
      this.sorted = this.sorted.concat(this.pending).sort();
    } else {
      for (const t of this.pending) {
        let lo = 0;
        let hi = this.sorted.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (this.sorted[mid] < t) lo = mid + 1;
          else hi = mid;
        }
        this.sorted.splice(lo, 0, t);
      }
    }
    this.pending = [];
    return this.sorted;
  }
}
