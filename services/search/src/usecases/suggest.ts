import type { SearchEngine, Suggestion } from '../engine/types';
import { checkQueryLength } from './common';

export const DEFAULT_SUGGESTIONS = 8;
export const MAX_SUGGESTIONS = 20;
/** Fewer typed characters than this get no suggestions (one letter matches too much to be useful). */
export const MIN_SUGGEST_CHARS = 2;

/** Completions while typing: titles that match, then the typed words completed from the index's vocabulary. */
export async function suggest(engine: SearchEngine, input: { q: string; limit?: number }): Promise<Suggestion[]> {
  const q = checkQueryLength(input.q.trim(), ['query', 'q']);
  if (q.length < MIN_SUGGEST_CHARS) return [];
  const limit = Math.min(MAX_SUGGESTIONS, Math.max(1, input.limit || DEFAULT_SUGGESTIONS));
  return engine.suggest(q, limit);
}
