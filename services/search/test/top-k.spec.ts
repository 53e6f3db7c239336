import { seededRandom } from '@tollgate/kit/src/testing/seeded-random';
import { topKBy } from '../src/engine/top-k';

const rand = seededRandom(11);

/** The reference: every slot sorted, the first k. */
function bySorting(slots: number[], k: number, key: Float64Array, keyDesc: boolean, ids: Int32Array, idDesc: boolean): number[] {
  return [...slots]
    .sort((a, b) => (key[a] !== key[b] ? (keyDesc ? key[b] - key[a] : key[a] - key[b]) : idDesc ? ids[b] - ids[a] : ids[a] - ids[b]))
    .slice(0, k);
}

describe('topKBy', () => {
  it('returns exactly the first k of a full sort, ties broken by id, in both directions', () => {
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(rand() * 300);
      // Few distinct keys in half the rounds: many ties at the floor of the heap.
      const distinct = round % 2 === 0 ? 3 : 1_000;
      const key = Float64Array.from({ length: n }, () => Math.floor(rand() * distinct) / 7);
      const ids = Int32Array.from({ length: n }, (_, i) => i * 3 + 1);
      const slots = Array.from({ length: n }, (_, i) => i).filter(() => rand() < 0.8);
      const k = 1 + Math.floor(rand() * 20);
      for (const keyDesc of [true, false])
        for (const idDesc of [true, false]) {
          expect(topKBy(Int32Array.from(slots), slots.length, k, key, keyDesc, ids, idDesc)).toEqual(bySorting(slots, k, key, keyDesc, ids, idDesc));
        }
    }
  });

  it('reads only the first `count` slots and gives nothing for k = 0', () => {
    const key = Float64Array.from([5, 9, 1, 7]);
    const ids = Int32Array.from([1, 2, 3, 4]);
    expect(topKBy(Int32Array.from([0, 1, 2, 3]), 2, 10, key, true, ids, true)).toEqual([1, 0]);
    expect(topKBy(Int32Array.from([0, 1, 2, 3]), 4, 0, key, true, ids, true)).toEqual([]);
  });
});
