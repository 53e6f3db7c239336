import type { FieldIssue } from '@tollgate/kit';

/** Deepest nesting of objects and arrays accepted in any request part. */
export const MAX_INPUT_DEPTH = 32;

/**
 * Problems no schema should have to think about, found anywhere in a request part: NUL characters
 * (PostgreSQL text cannot hold them), numbers JSON cannot hold (`1e309` parses to Infinity) and
 * nesting deeper than MAX_INPUT_DEPTH.
 */
export function unsafeInput(value: unknown, loc: string[], depth = 0): FieldIssue | null {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? { loc, msg: 'text must not contain NUL (\\u0000) characters', type: 'string_nul' } : null;
  }
  if (typeof value === 'number') {
    // JSON has no Infinity: `1e309` parses to it and would be stored, and echoed, as null.
    return Number.isFinite(value) ? null : { loc, msg: 'number out of range (finite numbers only, at most about 1.8e308)', type: 'number_out_of_range' };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_INPUT_DEPTH) return { loc, msg: `nested more than ${MAX_INPUT_DEPTH} levels deep`, type: 'too_deep' };
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, child] of entries) {
    if (key.includes('\u0000')) return { loc: [...loc, key], msg: 'names must not contain NUL (\\u0000) characters', type: 'string_nul' };
    const issue = unsafeInput(child, [...loc, key], depth + 1);
    if (issue) return issue;
  }
  return null;
}
