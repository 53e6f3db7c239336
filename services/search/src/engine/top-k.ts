/**
 * The best `k` of the first `count` slots, best first: ordered by `key` (descending when
 * `keyDesc`), ties by `ids` (descending when `idDesc`). A bounded binary heap with the worst kept
 * slot on top, comparisons inlined on typed arrays: O(n log k) and no sorting of every match.
 */
export function topKBy(slots: ArrayLike<number>, count: number, k: number, key: ArrayLike<number>, keyDesc: boolean, ids: ArrayLike<number>, idDesc: boolean): number[] {
  if (k <= 0 || count === 0) return [];
  // a before b?
  const before = (a: number, b: number): boolean => {
    const ka = key[a];
    const kb = key[b];
    if (ka !== kb) return keyDesc ? ka > kb : ka < kb;
    return idDesc ? ids[a] > ids[b] : ids[a] < ids[b];
  };
  const heap: number[] = [];
  // The worst kept key: once the heap is full, a slot whose key is strictly worse is passed over without a comparison call.
  let floor = 0;
  for (let i = 0; i < count; i++) {
    const x = slots[i];
    if (heap.length === k && (keyDesc ? key[x] < floor : key[x] > floor)) continue;
    if (heap.length < k) {
      heap.push(x);
      let c = heap.length - 1;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (!before(heap[p], heap[c])) break;
        const t = heap[p];
        heap[p] = heap[c];
        heap[c] = t;
        c = p;
      }
      floor = key[heap[0]];
    } else if (before(x, heap[0])) {
      heap[0] = x;
      let c = 0;
      const n = heap.length;
      for (;;) {
        const l = 2 * c + 1;
        const r = l + 1;
        let worst = c;
        if (l < n && before(heap[worst], heap[l])) worst = l;
        if (r < n && before(heap[worst], heap[r])) worst = r;
        if (worst === c) break;
        const t = heap[c];
        heap[c] = heap[worst];
        heap[worst] = t;
        c = worst;
      }
      floor = key[heap[0]];
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}
