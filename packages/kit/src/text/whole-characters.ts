const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * A cut position moved off the middle of a surrogate pair (a character beyond the Basic
 * Multilingual Plane, such as most emoji, is two UTF-16 units): `toward` 'start' moves it before
 * the character, 'end' after it. A cut there would leave half a character, shown as U+FFFD.
 */
export function wholeCharacterCut(text: string, at: number, toward: 'start' | 'end'): number {
  if (at <= 0 || at >= text.length) return at;
  if (!isHighSurrogate(text.charCodeAt(at - 1)) || !isLowSurrogate(text.charCodeAt(at))) return at;
  return toward === 'start' ? at - 1 : at + 1;
}

/** At most `max` UTF-16 units of `text` from its start, never half a character. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, wholeCharacterCut(text, max, 'start'));
}
