import { boundedDamerau } from '../src/engine/fuzzy';
import { TermDictionary } from '../src/engine/term-dictionary';
import { seededRandom } from '@tollgate/kit/src/testing/seeded-random';

const rand = seededRandom(7);
const letters = 'abcdeklmnorst';
const randomWord = () => Array.from({ length: 2 + Math.floor(rand() * 9) }, () => letters[Math.floor(rand() * letters.length)]).join('');

describe('typo distance and the term dictionary', () => {
  it('counts a swap of neighbours as one edit, and other edits as usual', () => {
    expect(boundedDamerau('install', 'instlal', 2)).toBe(1);
    expect(boundedDamerau('install', 'instal', 2)).toBe(1);
    expect(boundedDamerau('install', 'inztall', 2)).toBe(1);
    expect(boundedDamerau('install', 'nistlal', 2)).toBe(2);
    expect(boundedDamerau('install', 'xyz', 2)).toBe(3);
    expect(boundedDamerau('', 'ab', 2)).toBe(2);
  });

  it('finds exactly the terms a brute-force scan finds, closest first', () => {
    const dict = new TermDictionary();
    const vocabulary = [...new Set(Array.from({ length: 3_000 }, randomWord))];
    vocabulary.forEach((w, i) => {
      const p = dict.add(w);
      for (let n = 0; n <= i % 5; n++) p.push(n, 0);
    });
    for (let q = 0; q < 200; q++) {
      const base = vocabulary[Math.floor(rand() * vocabulary.length)];
      const probe = rand() < 0.5 ? base : base.slice(0, 1) + base.slice(2, 3) + base.slice(1, 2) + base.slice(3);
      for (const max of [1, 2]) {
        const expected = vocabulary.filter((w) => w !== probe && boundedDamerau(probe, w, max) <= max).sort();
        const got = dict.within(probe, max, 10_000);
        expect(got.map((g) => g.term).sort()).toEqual(expected);
        expect(got.every((g) => g.distance === boundedDamerau(probe, g.term, max))).toBe(true);
        for (let i = 1; i < got.length; i++) expect(got[i - 1].distance).toBeLessThanOrEqual(got[i].distance);
      }
    }
  });

  it('expands a prefix to its most frequent terms first, capped', () => {
    const dict = new TermDictionary();
    const add = (w: string, df: number) => {
      const p = dict.add(w);
      for (let i = 0; i < df; i++) p.push(i, 0);
    };
    add('install', 5);
    add('installation', 9);
    add('instant', 1);
    add('inside', 7);
    expect(dict.withPrefix('inst', 10)).toEqual(['installation', 'install', 'instant']);
    expect(dict.withPrefix('inst', 2)).toEqual(['installation', 'install']);
    add('instance', 3);
    expect(dict.withPrefix('insta', 10)).toEqual(['installation', 'install', 'instance', 'instant']);
    expect(dict.withPrefix('zz', 10)).toEqual([]);
  });
});
