import type { SearchEngine, Suggestion } from '../engine/types';
import { checkQueryLength } from './common';

export const DEFAULT_SUGGESTIONS = 8;
export const MAX_SUGGESTIONS = 20;
/** Suggestions start with the first typed character (the engines answer from dictionaries, not a full search). */
export const MIN_SUGGEST_CHARS = 1;

/** Completions while typing: titles that match, then the typed words completed from the index's vocabulary. */
export async function suggest(engine: SearchEngine, input: { q: string; limit?: number }): Promise<Suggestion[]> {
  const q = checkQueryLength(input.q.trim(), ['query', 'q']);
  if (q.length < MIN_SUGGEST_CHARS) return [];
  const limit = Math.min(MAX_SUGGESTIONS, Math.max(1, input.limit || DEFAULT_SUGGESTIONS));
  return engine.suggest(q, limit);
}
