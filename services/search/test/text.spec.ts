import { highlightAll, snippet } from '../src/engine/highlight';
import { escapeHtml, markdownToText, normalizeTerm, words } from '../src/engine/text';

describe('text for the index', () => {
  it('reduces markdown to readable text', () => {
    const md = '# Title\n\nSome **bold** and _em_ text with a [link](http://x.y) and `code`.\n\n- item one\n- item two\n\n```ts\nconst a = 1;\n```\n![alt text](img.png)';
    const text = markdownToText(md);
    expect(text).toContain('Title');
    expect(text).toContain('Some bold and em text with a link and code.');
    expect(text).toContain('item one');
    expect(text).toContain('const a = 1;');
    expect(text).toContain('alt text');
    expect(text).not.toMatch(/[#*`]|http:|\]\(/);
  });

  it('splits words at symbols as at punctuation: each word joined by = + ~ ^ | < > is found on its own', () => {
    expect(words('Set timeout=quokka. Use pelican+walrus, tilde~wombat, caret^jackal, a|b and `tick`')).toEqual(['Set', 'timeout', 'quokka', 'Use', 'pelican', 'walrus', 'tilde', 'wombat', 'caret', 'jackal', 'a', 'b', 'and', 'tick']);
    expect(words('List<String> x≤y 🚀launch $5')).toEqual(['List', 'String', 'x', 'y', '🚀launch', '$5']);
  });

  it('keeps what is between angle brackets: raw HTML is shown as text, so its words are searchable', () => {
    const text = markdownToText('Compare narwhal<ocelot and iguana>gecko, and `List<String>` in code.');
    expect(words(text)).toEqual(expect.arrayContaining(['narwhal', 'ocelot', 'and', 'iguana', 'gecko', 'List', 'String']));
  });

  it('marks a word next to symbols without marking the symbols', () => {
    expect(highlightAll('see </mark> and a=mark', new Set(['mark']))).toBe('see &lt;/<mark>mark</mark>&gt; and a=<mark>mark</mark>');
    expect(highlightAll('see </mark> and a=mark é', new Set(['mark']))).toBe('see &lt;/<mark>mark</mark>&gt; and a=<mark>mark</mark> é');
  });

  it('normalizes case and accents', () => {
    expect(normalizeTerm('Über')).toBe('uber');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('marks matched words, whatever their case or accents', () => {
    expect(highlightAll('Über Install <x>', new Set(['uber', 'install']))).toBe('<mark>Über</mark> <mark>Install</mark> &lt;x&gt;');
  });

  it('cuts a snippet around the densest matches on word boundaries', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(20);
    const text = `${filler}needle here and another needle there ${filler}`;
    const s = snippet(text, new Set(['needle']), 80);
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s.match(/<mark>needle<\/mark>/g)).toHaveLength(2);
    expect(s.replace(/<\/?mark>|…/g, '').length).toBeLessThanOrEqual(80);
    const whole = new Set(['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'needle', 'here', 'and', 'another', 'there']);
    const plain = s.replace(/<\/?mark>|…/g, '').split(' ');
    expect(whole.has(plain[0])).toBe(true);
    expect(whole.has(plain[plain.length - 1])).toBe(true);
  });

  it('never cuts a character beyond the Basic Multilingual Plane in half (no U+FFFD at either end)', () => {
    for (const char of ['😀', '𝒳']) {
      for (const shift of ['', 'a']) {
        const text = `${shift}${char.repeat(200)} needle ${char.repeat(200)}`;
        for (const terms of [new Set(['needle']), new Set(['zzz'])]) {
          const s = snippet(text, terms, 81);
          expect(s).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
          expect(Buffer.from(s, 'utf8').toString('utf8')).not.toContain('\uFFFD');
        }
      }
    }
  });

  it('starts at the beginning when nothing in the text matched', () => {
    expect(snippet('short text', new Set(['zzz']))).toBe('short text');
  });
});
