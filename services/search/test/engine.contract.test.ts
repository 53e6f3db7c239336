import { randomBytes } from 'node:crypto';
import { EmbeddedEngine } from '../src/engine/embedded-engine';
import { MeiliEngine } from '../src/meili/meili-engine';
import { engineContract } from './engine-contract';

describe('embedded engine (MiniSearch)', () => {
  engineContract(async () => new EmbeddedEngine());
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
