/**
 * Typo and prefix rules shared by both engines (Meilisearch's defaults, mirrored in the
 * embedded engine): one typo from 5 characters, two from 9; prefix matching only on the last
 * word once it has 3 characters (as-you-type), which keeps short prefixes from exploding.
 */
export const TYPO_MIN_ONE = 5;
export const TYPO_MIN_TWO = 9;
export const PREFIX_MIN = 3;

export function typosAllowed(term: string): number {
  return term.length >= TYPO_MIN_TWO ? 2 : term.length >= TYPO_MIN_ONE ? 1 : 0;
}

export const FIELD_BOOST = { title: 3, tags: 2, category: 1.5, text: 1 } as const;
