import { EmbeddedEngine } from '../../src/engine/embedded-engine';
import { JUDGED_DOCS, JUDGEMENTS, hitsAt3 } from './judged-set';

/**
 * Relevance must not get worse: every judged query keeps a relevant document in its top 3.
 * (MiniSearch, the previous engine, had 40 of 45: it missed the five short words with swapped letters.)
 */
describe('judged relevance set (embedded engine)', () => {
  it('puts a relevant document in the top 3 for every judged query', async () => {
    const engine = new EmbeddedEngine();
    await engine.upsert(JUDGED_DOCS);
    const result = await hitsAt3(async (q) => (await engine.search({ q, categories: [], tags: [], sort: 'relevance', offset: 0, limit: 10 })).hits.map((h) => h.id));
    expect(result.missed).toEqual([]);
    expect(result.hits).toBe(JUDGEMENTS.length);
  });
});
