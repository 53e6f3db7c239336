import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import hljs from 'highlight.js';
import sanitizeHtml from 'sanitize-html';
import type { PluginsSectionValue } from '@tollgate/kit';

export interface TocItem {
  level: number;
  text: string;
  anchor: string;
}

export interface Rendered {
  html: string;
  toc: TocItem[];
  plugins: string[];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** GitHub-like heading ids: lower case, letters and digits joined by dashes. */
export function headingSlug(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'section';
}

/** What survives sanitising: markdown's own output, heading ids, anchor links, highlight.js classes. Never scripts, styles, event handlers or javascript: URLs. */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'ul', 'ol', 'li', 'strong', 'em', 's', 'del', 'code', 'pre', 'span',
    'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'nav',
  ],
  allowedAttributes: {
    h1: ['id'], h2: ['id'], h3: ['id'], h4: ['id'], h5: ['id'], h6: ['id'],
    a: ['href', 'title', 'class', 'aria-hidden'],
    img: ['src', 'alt', 'title'],
    code: ['class'], span: ['class'], pre: ['class'], nav: ['class', 'aria-label'], ul: ['class'], li: ['class'],
    th: ['style'], td: ['style'], ol: ['start'],
  },
  allowedClasses: { '*': ['toc', 'toc-item', 'header-anchor', 'hljs', /^hljs-[a-z0-9_-]+$/, /^language-[a-z0-9+#_-]+$/] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
};

function tocHtml(items: TocItem[]): string {
  if (items.length === 0) return '';
  const lis = items.map((i) => `<li class="toc-item"><a href="#${escapeHtml(i.anchor)}">${escapeHtml(i.text)}</a></li>`).join('');
  return `<nav class="toc" aria-label="Table of contents"><ul>${lis}</ul></nav>\n`;
}

/**
 * Markdown → sanitised HTML with the enabled plugins: heading anchors (ids always, a permalink
 * symbol when enabled), a table of contents, code highlighting. Raw HTML in the markdown is
 * shown as text (markdown-it `html: false`), and the result is sanitised again.
 */
export function renderMarkdown(markdown: string, plugins: PluginsSectionValue): Rendered {
  const headings: TocItem[] = [];
  const used: string[] = [];
  const highlight = plugins.code_highlighting;
  const allowed = new Set(highlight.settings.languages);
  const md: MarkdownIt = new MarkdownIt({
    html: false,
    linkify: true,
    highlight: highlight.enabled
      ? (code, lang) => {
          const language = lang && hljs.getLanguage(lang) && (allowed.size === 0 || allowed.has(lang)) ? lang : undefined;
          if (!language) return '';
          return `<pre class="hljs"><code class="hljs language-${escapeHtml(language)}">${hljs.highlight(code, { language, ignoreIllegals: true }).value}</code></pre>`;
        }
      : undefined,
  });
  const anchors = plugins.heading_anchors;
  md.use(anchor, {
    level: 1,
    slugify: headingSlug,
    callback: (token, info) => headings.push({ level: Number(token.tag.slice(1)), text: info.title, anchor: info.slug }),
    ...(anchors.enabled && {
      permalink: anchor.permalink.linkInsideHeader({ symbol: escapeHtml(anchors.settings.symbol), placement: 'before', ariaHidden: true, class: 'header-anchor' }),
    }),
  });
  // the permalink goes only on the configured levels: remove it from the others after rendering the tokens
  const levels = new Set(anchors.settings.levels);
  if (anchors.enabled) used.push('heading_anchors');
  if (highlight.enabled) used.push('code_highlighting');
  const env = {};
  const tokens = md.parse(markdown, env);
  if (anchors.enabled) stripAnchorsOutside(tokens, levels);
  let body = md.renderer.render(tokens, md.options, env);
  const toc = plugins.table_of_contents;
  let tocItems: TocItem[] = [];
  if (toc.enabled) {
    used.push('table_of_contents');
    tocItems = headings.filter((h) => h.level >= toc.settings.min_level && h.level <= toc.settings.max_level);
    body = tocHtml(tocItems) + body;
  }
  return { html: sanitizeHtml(body, SANITIZE), toc: tocItems, plugins: used };
}

type Token = ReturnType<MarkdownIt['parse']>[number];

function stripAnchorsOutside(tokens: Token[], levels: Set<number>): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type !== 'heading_open' || levels.has(Number(t.tag.slice(1)))) continue;
    const inline = tokens[i + 1];
    if (inline?.type !== 'inline' || !inline.children) continue;
    const open = inline.children.findIndex((c) => c.type === 'link_open' && (c.attrGet('class') ?? '').includes('header-anchor'));
    if (open < 0) continue;
    const close = inline.children.findIndex((c, j) => j > open && c.type === 'link_close');
    // drop the link, its symbol and the space placed after it
    const end = inline.children[close + 1]?.type === 'text' && inline.children[close + 1].content === ' ' ? close + 1 : close;
    inline.children.splice(open, end - open + 1);
  }
}
