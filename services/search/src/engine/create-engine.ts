import type { SearchConfig } from '../config';
import { MeiliEngine } from '../meili/meili-engine';
import { EmbeddedEngine } from './embedded-engine';
import { WorkerEngine } from './worker-engine';
import type { SearchEngine } from './types';

/** Meilisearch when MEILISEARCH_URL is configured, the embedded engine otherwise (in a worker thread unless SEARCH_ENGINE_THREAD=inline). */
export function createEngine(config: SearchConfig): SearchEngine {
  if (config.meilisearch) return new MeiliEngine(config.meilisearch);
  return config.engineThread === 'worker' ? new WorkerEngine() : new EmbeddedEngine();
}
