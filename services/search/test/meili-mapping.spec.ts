import { MEILI_SETTINGS, POST, PRE, completedTerms, meiliRelevanceSettings, fromMeiliHit, markedToHtml, meiliFilter, meiliSearchParams, meiliSort, quote, toMeiliDocument } from '../src/meili/meili-mapping';
import { query } from './engine-contract';

// The Meilisearch side of the engine without a server: settings, filters, sorts, hits.
describe('Meilisearch mapping', () => {
  it('declares searchable attributes in boost order, filters, sorts and typo tolerance', () => {
    expect(MEILI_SETTINGS.searchableAttributes).toEqual(['title', 'tags', 'category', 'text']);
    expect(MEILI_SETTINGS.filterableAttributes).toEqual(expect.arrayContaining(['category', 'tags', 'updated_at', 'created_at']));
    expect(MEILI_SETTINGS.sortableAttributes).toEqual(expect.arrayContaining(['updated_at', 'created_at', 'title', 'id']));
    expect(MEILI_SETTINGS.typoTolerance).toEqual({ enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } });
    expect(MEILI_SETTINGS.pagination?.maxTotalHits).toBeGreaterThanOrEqual(10_000);
  });

  it('stores documents with snake_case attributes and epoch-ms dates', () => {
    const doc = { id: 7, slug: 's', title: 'T', text: 'x', category: 'c', tags: ['a'], authorAccountId: 3, createdAt: 1000, updatedAt: 2000 };
    expect(toMeiliDocument(doc)).toEqual({ id: 7, slug: 's', title: 'T', text: 'x', category: 'c', tags: ['a'], author_account_id: 3, created_at: 1000, updated_at: 2000 });
  });

  it('quotes filter values so that user text cannot change the expression', () => {
    expect(quote('plain')).toBe('"plain"');
    expect(quote('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(meiliFilter({ categories: ['a" OR id > 0 OR "'], tags: [] })).toEqual(['category IN ["a\\" OR id > 0 OR \\""]']);
  });

  it('maps categories and tags to IN lists and the date range to updated_at bounds', () => {
    expect(meiliFilter({ categories: [], tags: [] })).toEqual([]);
    expect(meiliFilter({ categories: ['guides', 'faq'], tags: ['setup'], updatedFrom: 1_700_000_000_000, updatedTo: 1_700_086_400_000.7 })).toEqual([
      'category IN ["guides", "faq"]',
      'tags IN ["setup"]',
      'updated_at >= 1700000000000',
      'updated_at < 1700086400000',
    ]);
  });

  it('maps sorts, relevance being none', () => {
    expect(meiliSort('relevance')).toBeUndefined();
    expect(meiliSort('updated_desc')).toEqual(['updated_at:desc', 'id:desc']);
    expect(meiliSort('created_asc')).toEqual(['created_at:asc', 'id:asc']);
    expect(meiliSort('title_asc')).toEqual(['title:asc', 'id:asc']);
  });

  it('asks for one exact-total page with highlighting and a cropped snippet', () => {
    const params = meiliSearchParams(query({ q: 'x', offset: 20, limit: 10, categories: ['c'], sort: 'updated_asc' }));
    expect(params).toMatchObject({
      page: 3,
      hitsPerPage: 10,
      filter: ['category IN ["c"]'],
      sort: ['updated_at:asc', 'id:asc'],
      attributesToHighlight: ['title', 'text'],
      attributesToCrop: ['text'],
      highlightPreTag: PRE,
      highlightPostTag: POST,
      showRankingScore: true,
    });
    expect(params).not.toHaveProperty('offset');
  });

  it('turns a hit into the engine shape, escaping text before marking matches', () => {
    const hit = fromMeiliHit({
      id: 4,
      slug: 's',
      title: 'Search <b>config</b>',
      text: '',
      category: 'guides',
      tags: ['x'],
      author_account_id: 3,
      created_at: 1,
      updated_at: 2,
      _rankingScore: 0.9,
      _formatted: { title: `${PRE}Search${POST} <b>config</b>`, text: `…the ${PRE}search${POST}   engine & <script>…` },
    });
    expect(hit).toEqual({
      id: 4,
      slug: 's',
      title: 'Search <b>config</b>',
      titleHighlighted: '<mark>Search</mark> &lt;b&gt;config&lt;/b&gt;',
      snippet: '…the <mark>search</mark> engine &amp; &lt;script&gt;…',
      category: 'guides',
      tags: ['x'],
      authorAccountId: 3,
      createdAt: 1,
      updatedAt: 2,
      score: 0.9,
    });
    expect(markedToHtml('a "b"')).toBe('a &quot;b&quot;');
  });

  it('completes the last typed word from marked prefixes, keeping the words before it', () => {
    const texts = [`the ${PRE}instal${POST}lation takes`, `${PRE}Instal${POST}l it`, `again ${PRE}instal${POST}lation.`];
    expect(completedTerms('instal', texts, 5).map((s) => s.text)).toEqual(['installation', 'install']);
    expect(completedTerms('pnpm  instal', texts, 1)).toEqual([{ text: 'pnpm installation', kind: 'term', documentId: 0 }]);
  });

  it('turns relevance settings into Meilisearch synonyms (both ways), stop words and typo tolerance', () => {
    const out = meiliRelevanceSettings({ synonyms: [['K8s', 'kubernetes'], ['k8s', 'kube'], [' ']], stopWords: ['The', 'the', ' a '], typoTolerance: false });
    expect(out.synonyms).toEqual({ k8s: ['kubernetes', 'kube'], kubernetes: ['k8s'], kube: ['k8s'] });
    expect(out.stopWords).toEqual(['the', 'a']);
    expect(out.typoTolerance).toEqual({ enabled: false, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } });
    expect(meiliRelevanceSettings({ synonyms: [], stopWords: [], typoTolerance: true }).typoTolerance).toMatchObject({ enabled: true });
  });
});
