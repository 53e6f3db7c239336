import { wholeCharacterCut } from '@tollgate/kit/src/text';
import { WORD, WORD_CHAR as WORD_CHAR_RE, escapeHtml, normalizeTerm } from './text';

export const MARK_OPEN = '<mark>';
export const MARK_CLOSE = '</mark>';
export const SNIPPET_CHARS = 200;

interface Span {
  start: number;
  end: number;
}

const ASCII_TEXT = /^[\x00-\x7f]*$/;
/** Which ASCII characters belong to a word under WORD (letters, digits, $). */
const WORD_CHAR = Array.from({ length: 128 }, (_, c) => WORD_CHAR_RE.test(String.fromCharCode(c)));

/** Where in `text` the words whose normalized form is in `terms` are. */
export function matchSpans(text: string, terms: ReadonlySet<string>): Span[] {
  if (ASCII_TEXT.test(text)) return asciiSpans(text, terms);
  const spans: Span[] = [];
  for (const m of text.matchAll(WORD)) {
    if (terms.has(normalizeTerm(m[0]))) spans.push({ start: m.index!, end: m.index! + m[0].length });
  }
  return spans;
}

/** The same for ASCII text, without splitting it into words: each term is looked for with indexOf and kept where it is a whole word. */
function asciiSpans(text: string, terms: ReadonlySet<string>): Span[] {
  const lower = text.toLowerCase();
  const spans: Span[] = [];
  const isWord = (i: number) => i >= 0 && i < lower.length && WORD_CHAR[lower.charCodeAt(i)];
  for (const term of terms) {
    if (!term) continue;
    for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + term.length)) {
      if (!isWord(at - 1) && !isWord(at + term.length)) spans.push({ start: at, end: at + term.length });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** `text[from, to)` HTML-escaped with the spans inside it marked. */
function render(text: string, spans: Span[], from: number, to: number): string {
  let out = '';
  let at = from;
  for (const s of spans) {
    if (s.end <= from || s.start >= to) continue;
    out += escapeHtml(text.slice(at, s.start)) + MARK_OPEN + escapeHtml(text.slice(s.start, s.end)) + MARK_CLOSE;
    at = s.end;
  }
  return out + escapeHtml(text.slice(at, to));
}

/** The whole text, escaped, with every matched word marked (for titles). */
export function highlightAll(text: string, terms: ReadonlySet<string>): string {
  return render(text, matchSpans(text, terms), 0, text.length);
}

/**
 * A window of about `size` characters around the densest run of matches, on word boundaries,
 * escaped, matches marked, with "…" where text was cut. The start of the text when nothing matches.
 */
export function snippet(text: string, terms: ReadonlySet<string>, size = SNIPPET_CHARS): string {
  const spans = matchSpans(text, terms);
  let from = 0;
  if (spans.length > 0) {
    let best = 0;
    let bestCount = 0;
    for (let i = 0, j = 0; i < spans.length; i++) {
      while (j < spans.length && spans[j].end - spans[i].start <= size) j++;
      if (j - i > bestCount) [best, bestCount] = [i, j - i];
    }
    from = Math.max(0, spans[best].start - Math.floor(size / 4));
  }
  let to = Math.min(text.length, from + size);
  if (to - from < size) from = Math.max(0, to - size);
  if (from > 0) from = wholeCharacterCut(text, wordStartAfter(text, from), 'end');
  if (to < text.length) to = wholeCharacterCut(text, wordEndBefore(text, to, from), 'start');
  const body = render(text, spans, from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}`;
}

function wordStartAfter(text: string, i: number): number {
  const space = text.slice(i).search(/\s/);
  return space < 0 || space > 30 ? i : i + space + 1;
}

function wordEndBefore(text: string, i: number, floor: number): number {
  const before = text.slice(floor, i);
  const space = before.search(/\s\S*$/);
  return space < 0 || before.length - space > 30 ? i : floor + space;
}
