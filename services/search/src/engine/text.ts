/**
 * What separates words: whitespace, punctuation, and the math and modifier symbols (= + ~ | < > ^
 * `), so `timeout=quokka` is two words. Letters, digits, currency signs and emoji are word characters.
 */
const SEPARATORS = '\\n\\r\\p{Z}\\p{P}\\p{Sm}\\p{Sk}';
/** The index's notion of a word: what lies between separators. */
export const WORD = new RegExp(`[^${SEPARATORS}]+`, 'gu');
/** One word character. */
export const WORD_CHAR = new RegExp(`[^${SEPARATORS}]`, 'u');

/** Lower case, accents removed: "Über" and "uber" are the same term. */
export function normalizeTerm(term: string): string {
  const lower = term.toLowerCase();
  return ASCII.test(lower) ? lower : lower.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Markdown reduced to the text a reader sees: no code fences, link targets, images, emphasis or heading marks. Raw HTML stays: the renderer shows it as text. */
export function markdownToText(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n([\s\S]*?)```/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/(^|\s)[*_](\S)/g, '$1$2')
    .replace(/(\S)[*_](?=\s|$|[.,;:!?])/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
