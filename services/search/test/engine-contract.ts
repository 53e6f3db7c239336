import { DEFAULT_SETTINGS, type SearchDoc, type SearchEngine, type EngineQuery } from '../src/engine/types';

const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);

export const CORPUS: SearchDoc[] = [
  { id: 1, slug: 'installation-guide', title: 'Installation guide', text: 'Install Tollgate with pnpm. The installation takes about a minute on a laptop.', category: 'guides', tags: ['setup', 'cli'], authorAccountId: 1, createdAt: day('2025-01-01'), updatedAt: day('2025-01-10') },
  { id: 2, slug: 'authentication-tokens', title: 'Authentication tokens', text: 'Every request carries a bearer token. Tokens are created by an administrator and shown once.', category: 'reference', tags: ['security'], authorAccountId: 2, createdAt: day('2025-01-02'), updatedAt: day('2025-02-15') },
  { id: 3, slug: 'rate-limits', title: 'Rate limits', text: 'Free accounts may send one thousand requests per hour; Pro accounts ten thousand.', category: 'reference', tags: ['limits'], authorAccountId: 1, createdAt: day('2025-01-03'), updatedAt: day('2025-03-20') },
  { id: 4, slug: 'search-configuration', title: 'Search configuration', text: 'Meilisearch or the embedded engine index the documents. Markup like <script>alert(1)</script> is shown as text.', category: 'guides', tags: ['search', 'setup'], authorAccountId: 3, createdAt: day('2025-01-04'), updatedAt: day('2025-04-01') },
  { id: 5, slug: 'troubleshooting-installation', title: 'Troubleshooting installation problems', text: 'When pnpm fails, check the network. Most problems come from proxies.', category: 'faq', tags: ['setup'], authorAccountId: 2, createdAt: day('2025-01-05'), updatedAt: day('2025-05-05') },
];

export const query = (over: Partial<EngineQuery>): EngineQuery => ({ q: '', categories: [], tags: [], sort: 'relevance', offset: 0, limit: 10, ...over });

const ids = async (engine: SearchEngine, over: Partial<EngineQuery>) => (await engine.search(query(over))).hits.map((h) => h.id);

async function* batchesOf(docs: SearchDoc[], size: number): AsyncGenerator<SearchDoc[]> {
  for (let i = 0; i < docs.length; i += size) yield docs.slice(i, i + size);
}

/** One behaviour for every engine: each `it` gets a fresh engine holding CORPUS. */
export function engineContract(make: () => Promise<SearchEngine>, dispose: (e: SearchEngine) => Promise<void> = async () => {}): void {
  let engine: SearchEngine;
  beforeEach(async () => {
    engine = await make();
    await engine.upsert(CORPUS);
  });
  afterEach(async () => {
    await dispose(engine);
  });

  it('finds a document by a word and marks the match in title and snippet', async () => {
    const res = await engine.search(query({ q: 'authentication' }));
    expect(res.total).toBe(1);
    expect(res.hits[0]).toMatchObject({ id: 2, slug: 'authentication-tokens', category: 'reference', tags: ['security'], authorAccountId: 2, updatedAt: day('2025-02-15') });
    expect(res.hits[0].titleHighlighted).toBe('<mark>Authentication</mark> tokens');
    expect(res.hits[0].score).toBeGreaterThan(0);
    const token = await engine.search(query({ q: 'bearer' }));
    expect(token.hits[0].snippet).toContain('<mark>bearer</mark>');
  });

  it('tolerates typos in longer words', async () => {
    expect(await ids(engine, { q: 'authentcation' })).toEqual([2]);
    expect((await ids(engine, { q: 'instalation' })).sort()).toEqual([1, 5]);
    expect(await ids(engine, { q: 'troubleshoting' })).toEqual([5]);
  });

  it('completes the last word as a prefix', async () => {
    expect(await ids(engine, { q: 'configur' })).toEqual([4]);
    expect(await ids(engine, { q: 'bearer tok' })).toEqual([2]);
  });

  it('ranks documents matching every word first', async () => {
    const found = await ids(engine, { q: 'installation problems' });
    expect(found[0]).toBe(5);
  });

  it('filters by any of the categories and any of the tags, with or without a query', async () => {
    expect((await ids(engine, { categories: ['reference'] })).sort()).toEqual([2, 3]);
    expect((await ids(engine, { q: 'installation', tags: ['setup'], categories: ['faq'] }))).toEqual([5]);
    expect((await ids(engine, { tags: ['security', 'limits'] })).sort()).toEqual([2, 3]);
    expect(await ids(engine, { q: 'installation', categories: ['reference'] })).toEqual([]);
  });

  it('keeps categories and tags apart when filtering', async () => {
    await engine.upsert([{ ...CORPUS[0], id: 8, slug: 'tagged-guides', title: 'Tagged guides', category: 'faq', tags: ['guides'] }]);
    expect((await ids(engine, { categories: ['guides'] })).sort()).toEqual([1, 4]);
    expect(await ids(engine, { tags: ['guides'] })).toEqual([8]);
    expect(await ids(engine, { categories: ['GUIDES'], tags: ['setup'] })).toEqual(expect.arrayContaining([1, 4]));
    expect(await ids(engine, { categories: ['no-such-category'] })).toEqual([]);
  });

  it('filters by updated date range, end exclusive', async () => {
    const found = await ids(engine, { updatedFrom: Date.parse('2025-02-01T00:00:00Z'), updatedTo: Date.parse('2025-04-01T00:00:00Z') });
    expect(found.sort()).toEqual([2, 3]);
  });

  it('sorts by dates and title, and pages with an exact total', async () => {
    expect(await ids(engine, { sort: 'updated_desc' })).toEqual([5, 4, 3, 2, 1]);
    expect(await ids(engine, { sort: 'created_asc' })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids(engine, { sort: 'title_asc' })).toEqual([2, 1, 3, 4, 5]);
    const page2 = await engine.search(query({ sort: 'updated_asc', offset: 2, limit: 2 }));
    expect(page2.total).toBe(5);
    expect(page2.hits.map((h) => h.id)).toEqual([3, 4]);
  });

  it('escapes markup in snippets', async () => {
    const res = await engine.search(query({ q: 'embedded' }));
    expect(res.hits[0].id).toBe(4);
    expect(res.hits[0].snippet).toContain('&lt;script&gt;');
    expect(res.hits[0].snippet).not.toContain('<script>');
    expect(res.hits[0].snippet).toContain('<mark>embedded</mark>');
  });

  it('forgets removed documents and replaces updated ones', async () => {
    await engine.remove([2, 999]);
    expect(await ids(engine, { q: 'bearer' })).toEqual([]);
    await engine.upsert([{ ...CORPUS[2], title: 'Quotas and throttling' }]);
    expect(await ids(engine, { q: 'throttling' })).toEqual([3]);
    expect(await ids(engine, { q: 'rate' })).toEqual([]);
    expect(await engine.count()).toBe(4);
  });

  it('replaces the whole index at once', async () => {
    const indexed = await engine.replaceAll(batchesOf([CORPUS[0], { ...CORPUS[1], id: 42 }], 1));
    expect(indexed).toBe(2);
    expect(await engine.count()).toBe(2);
    expect(await ids(engine, { q: 'bearer' })).toEqual([42]);
    expect(await ids(engine, { q: 'proxies' })).toEqual([]);
  });

  it('suggests matching titles and completed terms while typing', async () => {
    const got = await engine.suggest('instal', 6);
    expect(got.filter((s) => s.kind === 'title').map((s) => [s.text, s.documentId])).toEqual(
      expect.arrayContaining([
        ['Installation guide', 1],
        ['Troubleshooting installation problems', 5],
      ]),
    );
    expect(got.filter((s) => s.kind === 'term').map((s) => s.text)).toContain('installation');
    expect(got.length).toBeLessThanOrEqual(6);
    expect((await engine.suggest('authen', 4))[0]).toEqual({ text: 'Authentication tokens', kind: 'title', documentId: 2 });
    expect(await engine.suggest('zzzzqq', 4)).toEqual([]);
  });

  it('never suggests a word that only removed or replaced documents held', async () => {
    await engine.upsert([
      { ...CORPUS[0], id: 31, slug: 'secret-plans', title: 'Zorblatt plans', text: 'zorblattsecretcode merger', tags: [] },
      { ...CORPUS[0], id: 32, slug: 'animals', title: 'Animals', text: 'the quokkaphant lives here', tags: [] },
    ]);
    expect((await engine.suggest('zorblatts', 5)).map((s) => s.text)).toContain('zorblattsecretcode');
    expect((await engine.suggest('quokkap', 5)).map((s) => s.text)).toContain('quokkaphant');
    await engine.upsert([{ ...CORPUS[0], id: 31, slug: 'secret-plans', title: 'Public plans', text: 'nothing to see', tags: [] }]);
    await engine.remove([32]);
    expect(await engine.suggest('zorblatts', 5)).toEqual([]);
    expect(await engine.suggest('zorblatt', 5)).toEqual([]);
    expect(await engine.suggest('quokkap', 5)).toEqual([]);
  });

  it('matches synonyms both ways once applied, and forgets them when settings change again', async () => {
    await engine.upsert([
      { ...CORPUS[0], id: 6, slug: 'cluster', title: 'Cluster deployment', text: 'Run the services on kubernetes with the chart.', tags: [] },
      { ...CORPUS[0], id: 7, slug: 'cheat-sheet', title: 'Cheat sheet', text: 'Handy k8s commands for operators.', tags: [] },
    ]);
    expect(await ids(engine, { q: 'k8s' })).toEqual([7]);
    await engine.applySettings({ synonyms: [['k8s', 'kubernetes']], stopWords: [], typoTolerance: true });
    expect((await ids(engine, { q: 'k8s' })).sort()).toEqual([6, 7]);
    expect((await ids(engine, { q: 'kubernetes' })).sort()).toEqual([6, 7]);
    await engine.applySettings(DEFAULT_SETTINGS);
    expect(await ids(engine, { q: 'kubernetes' })).toEqual([6]);
  });

  it('drops stop words from queries', async () => {
    await engine.applySettings({ synonyms: [], stopWords: ['the', 'how'], typoTolerance: true });
    expect(await ids(engine, { q: 'bearer the' })).toEqual([2]);
    expect(await ids(engine, { q: 'how authentication' })).toEqual([2]);
  });

  it('stops forgiving typos when typo tolerance is off, and forgives them again when it is on', async () => {
    await engine.applySettings({ synonyms: [], stopWords: [], typoTolerance: false });
    expect(await ids(engine, { q: 'authentcation' })).toEqual([]);
    expect(await ids(engine, { q: 'authentication' })).toEqual([2]);
    await engine.applySettings({ synonyms: [], stopWords: [], typoTolerance: true });
    expect(await ids(engine, { q: 'authentcation' })).toEqual([2]);
  });

  it('counts two swapped letters as one typo', async () => {
    expect(await ids(engine, { q: 'bearre' })).toEqual([2]);
    expect(await ids(engine, { q: 'proxeis' })).toEqual([5]);
  });

  it('completes from the first typed character', async () => {
    const got = await engine.suggest('a', 4);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((s) => s.text.toLowerCase().split(/\s+/).some((w) => w.startsWith('a')))).toBe(true);
  });

  it('is empty after clear', async () => {
    await engine.clear();
    expect(await engine.count()).toBe(0);
    expect((await engine.search(query({ q: 'installation' }))).total).toBe(0);
  });
}
