import type { EngineQuery, SearchDoc, SearchSettings } from './types';

/** Messages to the engine worker; each carries an id its reply repeats. */
export type WorkerRequest = { id: number } & (
  | { op: 'upsert'; docs: SearchDoc[] }
  | { op: 'remove'; ids: number[] }
  | { op: 'clear' }
  | { op: 'count' }
  | { op: 'search'; query: EngineQuery }
  | { op: 'suggest'; q: string; limit: number }
  | { op: 'applySettings'; settings: SearchSettings }
  /** Starts a rebuild; its reply (the number of documents) comes after replaceEnd. */
  | { op: 'replaceStart' }
  | { op: 'replaceBatch'; docs: SearchDoc[] }
  | { op: 'replaceEnd' }
);

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
