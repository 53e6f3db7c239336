import { randomBytes } from 'node:crypto';
import { EmbeddedEngine } from '../src/engine/embedded-engine';
import { WorkerEngine } from '../src/engine/worker-engine';
import { MeiliEngine } from '../src/meili/meili-engine';
import { engineContract } from './engine-contract';

describe('embedded engine', () => {
  engineContract(async () => new EmbeddedEngine());
});

describe('embedded engine in a worker thread', () => {
  it('refuses calls once closed, instead of hanging', async () => {
    const engine = new WorkerEngine();
    await engine.upsert([{ id: 1, slug: 'a', title: 'Alpha', text: 'alpha text', category: '', tags: [], authorAccountId: 1, createdAt: 0, updatedAt: 0 }]);
    expect(await engine.count()).toBe(1);
    await engine.close();
    await expect(engine.search({ q: 'alpha', categories: [], tags: [], sort: 'relevance', offset: 0, limit: 10 })).rejects.toThrow('closed');
  });

  engineContract(
    async () => {
      const engine = new WorkerEngine();
      await engine.init();
      return engine;
    },
    (engine) => engine.close(),
  );
});

const meiliUrl = process.env.MEILISEARCH_URL;
if (!meiliUrl) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! SKIPPED: the search engine contract against Meilisearch\n!! MEILISEARCH_URL is not set (no Meilisearch server here). Set it to run the same suite against one.\n${bar}\n`);
}

(meiliUrl ? describe : describe.skip)('meilisearch engine', () => {
  engineContract(
    async () => {
      const engine = new MeiliEngine({ url: meiliUrl!, apiKey: process.env.MEILISEARCH_API_KEY, index: `test_${randomBytes(6).toString('hex')}` });
      await engine.init();
      return engine;
    },
    (engine) => (engine as MeiliEngine).drop(),
  );
});
