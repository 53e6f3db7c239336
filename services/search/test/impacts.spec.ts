import { AVERAGE_DRIFT, B, Impacts, K1 } from '../src/engine/impacts';
import { InvertedIndex } from '../src/engine/inverted-index';
import { FIELD_BOOST } from '../src/engine/query-policy';
import { textCount, titleCount, tagsCount, categoryCount } from '../src/engine/postings';
import type { SearchDoc } from '../src/engine/types';

const doc = (id: number, text: string, title = 'title', tags: string[] = ['t'], category = 'c'): SearchDoc => ({
  id,
  slug: `d-${id}`,
  title,
  text,
  category,
  tags,
  authorAccountId: 1,
  createdAt: id,
  updatedAt: id,
});

/** BM25's per-posting contribution from scratch, with the index's averages as they are now. */
function exact(index: InvertedIndex, term: string): number[] {
  const p = index.terms.get(term)!;
  const n = index.live;
  const avg = { text: index.totals.text / n, title: index.totals.title / n, tags: index.totals.tags / n, category: index.totals.category / n };
  const field = (tf: number, len: number, average: number, boost: number) => (tf === 0 ? 0 : (boost * (K1 + 1) * tf) / (tf + K1 * (1 - B + (B * len) / average)));
  return Array.from({ length: p.length }, (_, j) => {
    const s = p.slots[j];
    const c = p.counts[j];
    return (
      field(textCount(c), index.lenText[s], avg.text, FIELD_BOOST.text) +
      field(titleCount(c), index.lenTitle[s], avg.title, FIELD_BOOST.title) +
      field(tagsCount(c), index.lenTags[s], avg.tags, FIELD_BOOST.tags) +
      field(categoryCount(c), index.lenCategory[s], avg.category, FIELD_BOOST.category)
    );
  });
}

const closeTo = (got: Float32Array, want: number[], relative: number) => {
  expect(got.length).toBeGreaterThanOrEqual(want.length);
  want.forEach((w, j) => expect(Math.abs(got[j] - w)).toBeLessThanOrEqual(relative * w + 1e-6));
};

describe('posting impacts', () => {
  it('equal BM25 computed from scratch, field by field', () => {
    const index = new InvertedIndex();
    index.add(doc(1, 'alpha beta alpha', 'alpha guide', ['alpha']));
    index.add(doc(2, 'alpha gamma delta epsilon zeta eta theta'));
    index.add(doc(3, 'beta only here', 'other', ['x'], 'alpha'));
    const impacts = new Impacts(index);
    closeTo(impacts.of(index.terms.get('alpha')!), exact(index, 'alpha'), 1e-6);
    closeTo(impacts.of(index.terms.get('beta')!), exact(index, 'beta'), 1e-6);
  });

  it('computes the postings of documents added later, and keeps earlier ones while the averages move less than the allowed drift', () => {
    const index = new InvertedIndex();
    for (let i = 1; i <= 200; i++) index.add(doc(i, `alpha ${'filler '.repeat(10)}`));
    const impacts = new Impacts(index);
    const before = Float32Array.from(impacts.of(index.terms.get('alpha')!));
    // One document one word longer than the others: the text average moves by far less than 1 %.
    index.add(doc(201, `alpha ${'filler '.repeat(11)}`));
    const after = impacts.of(index.terms.get('alpha')!);
    expect(index.terms.get('alpha')!.length).toBe(201);
    expect(Array.from(after.subarray(0, 200))).toEqual(Array.from(before));
    closeTo(after, exact(index, 'alpha'), AVERAGE_DRIFT);
    expect(after[200]).toBeGreaterThan(0);
  });

  it('are recomputed once an average has moved by more than the allowed drift', () => {
    const index = new InvertedIndex();
    for (let i = 1; i <= 50; i++) index.add(doc(i, `alpha ${'filler '.repeat(10)}`));
    const impacts = new Impacts(index);
    const before = Float32Array.from(impacts.of(index.terms.get('alpha')!));
    // Much longer documents: every document's length is now further below the average, so its impact rises.
    for (let i = 51; i <= 100; i++) index.add(doc(i, `alpha ${'filler '.repeat(40)}`));
    const after = impacts.of(index.terms.get('alpha')!);
    closeTo(after, exact(index, 'alpha'), 1e-6);
    expect(after[0]).toBeGreaterThan(before[0]);
  });

  it('follow a compaction that renumbers the slots', () => {
    const index = new InvertedIndex();
    // Every text is four words long, so removals never move the averages: only the compaction can make impacts stale.
    const text = (i: number) => (i % 2 === 1 ? 'beta filler filler filler' : ['alpha filler filler filler', 'alpha alpha filler filler', 'alpha alpha alpha filler'][i % 3]);
    for (let i = 1; i <= 3_000; i++) index.add(doc(i, text(i)));
    const impacts = new Impacts(index);
    impacts.of(index.terms.get('alpha')!);
    for (let i = 1; i <= 3_000; i++) if (i % 2 === 1 || i % 4 === 0) index.remove(i);
    expect(index.compactions).toBeGreaterThan(0);
    closeTo(impacts.of(index.terms.get('alpha')!), exact(index, 'alpha'), 1e-6);
  });
});
