import type { SearchConfig } from '../config';
import { MeiliEngine } from '../meili/meili-engine';
import { EmbeddedEngine } from './embedded-engine';
import type { SearchEngine } from './types';

/** Meilisearch when MEILISEARCH_URL is configured, the embedded engine otherwise. */
export function createEngine(config: SearchConfig): SearchEngine {
  return config.meilisearch ? new MeiliEngine(config.meilisearch) : new EmbeddedEngine();
}
