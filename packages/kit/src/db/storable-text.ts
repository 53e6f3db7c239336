/**
 * Text as PostgreSQL can store it: a `text` column cannot hold NUL (U+0000), so each one becomes
 * U+FFFD, the replacement character. For text the product did not choose: an upstream's answer, a
 * receiver's response body, an error message from elsewhere.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

function storableValue(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (!Object.keys(value).some((k) => k.includes('\u0000'))) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), v]));
}

/** JSON.parse of text from outside, with every NUL in its strings and names made storable (see storableText). */
export function parseStorableJson(text: string): unknown {
  return JSON.parse(text, storableValue);
}
