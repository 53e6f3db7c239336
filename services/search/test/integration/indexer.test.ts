import { silentLogger, type DocumentEvent } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createSearchDb, type SearchDb } from '../../src/db';
import { EmbeddedEngine } from '../../src/engine/embedded-engine';
import { IndexStateRepo } from '../../src/indexer/index-state-repo';
import { IndexVersions } from '../../src/indexer/index-versions';
import { Mutex } from '../../src/indexer/mutex';
import { applyDocumentEvent, type IndexerDeps } from '../../src/indexer/apply-event';
import { query } from '../engine-contract';

function event(id: number, version: number, change: DocumentEvent['change'], over: Partial<NonNullable<DocumentEvent['document']>> | null = {}): DocumentEvent {
  const at = new Date(Date.UTC(2025, 0, 1, 0, version)).toISOString();
  return {
    change,
    id,
    version,
    at,
    document:
      over === null
        ? undefined
        : { id, slug: `doc-${id}`, title: `Title ${id}`, content: 'body', category: 'c', tags: [], status: 'published', author_account_id: 1, created_at: at, updated_at: at, deleted_at: null, ...over },
  };
}

// Event application against the real state table: idempotent, ordered by version per document.
describe('indexer', () => {
  const database = useTestDatabase('search');
  let db: SearchDb;
  let deps: IndexerDeps;
  const titles = async (q: string) => (await deps.engine.search(query({ q }))).hits.map((h) => h.title);

  beforeAll(() => {
    if (!database.available) return;
    db = createSearchDb(database.url);
  });
  beforeEach(() => {
    if (!database.available) return;
    deps = { engine: new EmbeddedEngine(), state: new IndexStateRepo(db), lock: new Mutex(), log: silentLogger() };
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it('applies a newer version and ignores older ones and redeliveries', async () => {
    if (!database.available) return;
    expect(await applyDocumentEvent(deps, event(1, 2, 'updated', { title: 'Newer heading' }))).toBe('indexed');
    expect(await applyDocumentEvent(deps, event(1, 1, 'created', { title: 'Older heading' }))).toBe('stale');
    expect(await applyDocumentEvent(deps, event(1, 2, 'updated', { title: 'Newer heading' }))).toBe('stale');
    expect(await titles('heading')).toEqual(['Newer heading']);
    expect(await deps.state.version(1)).toBe(2);
  });

  it('removes a document that was unpublished, trashed or destroyed, and keeps it out', async () => {
    if (!database.available) return;
    await applyDocumentEvent(deps, event(2, 1, 'created', { title: 'Lighthouse' }));
    await applyDocumentEvent(deps, event(3, 1, 'created', { title: 'Lighthouse keeper' }));
    await applyDocumentEvent(deps, event(4, 1, 'created', { title: 'Lighthouse lamp' }));
    expect(await applyDocumentEvent(deps, event(2, 2, 'updated', { title: 'Lighthouse', status: 'draft' }))).toBe('removed');
    expect(await applyDocumentEvent(deps, event(3, 2, 'deleted', { title: 'Lighthouse keeper', deleted_at: new Date().toISOString() }))).toBe('removed');
    expect(await applyDocumentEvent(deps, event(4, 2, 'deleted', null))).toBe('removed');
    expect(await titles('lighthouse')).toEqual([]);
    expect(await applyDocumentEvent(deps, event(4, 1, 'created', { title: 'Lighthouse lamp' }))).toBe('stale');
    expect(await titles('lighthouse')).toEqual([]);
  });

  it('applies concurrent events for one document in version order of arrival, never going back', async () => {
    if (!database.available) return;
    const events = [3, 1, 5, 2, 4].map((v) => event(5, v, 'updated', { title: `Concurrent v${v}` }));
    await Promise.all(events.map((e) => applyDocumentEvent(deps, e)));
    expect(await titles('concurrent')).toEqual(['Concurrent v5']);
    expect(await deps.state.version(5)).toBe(5);
  });

  it('drops a malformed event without touching the index', async () => {
    if (!database.available) return;
    expect(await applyDocumentEvent(deps, { change: 'created' } as unknown as DocumentEvent)).toBe('malformed');
    expect(await deps.engine.count()).toBe(0);
  });

  it('records many versions at once without lowering any', async () => {
    if (!database.available) return;
    await deps.state.record(100, 7);
    await deps.state.recordMany([
      { id: 100, version: 3 },
      { id: 101, version: 2 },
    ]);
    expect(await deps.state.version(100)).toBe(7);
    expect(await deps.state.version(101)).toBe(2);
  });

  describe('versions kept in memory', () => {
    it('loads the table once, answers from memory, and writes behind in one batch on flush', async () => {
      if (!database.available) return;
      const repo = new IndexStateRepo(db);
      await repo.recordMany([{ id: 200, version: 4 }]);
      const versions = new IndexVersions(repo, silentLogger(), { writeBehind: true, flushMs: 60_000 });
      expect(await versions.load()).toBeGreaterThanOrEqual(1);
      expect(await versions.version(200)).toBe(4);
      const memoryDeps = { ...deps, state: versions };
      expect(await applyDocumentEvent(memoryDeps, event(201, 2, 'created', { title: 'Write behind' }))).toBe('indexed');
      expect(await applyDocumentEvent(memoryDeps, event(201, 1, 'created', { title: 'Older write behind' }))).toBe('stale');
      expect(await applyDocumentEvent(memoryDeps, event(200, 3, 'updated', { title: 'Older than the table' }))).toBe('stale');
      expect(await repo.version(201)).toBeUndefined();
      await versions.flush();
      expect(await repo.version(201)).toBe(2);
      expect(await titles('behind')).toEqual(['Write behind']);
    });

    it('writes through when not behind, and a fresh load sees what was written', async () => {
      if (!database.available) return;
      const repo = new IndexStateRepo(db);
      const versions = new IndexVersions(repo, silentLogger(), { writeBehind: false });
      await versions.load();
      await versions.record(300, 5);
      expect(await repo.version(300)).toBe(5);
      await versions.recordMany([{ id: 300, version: 2 }]);
      const again = new IndexVersions(repo, silentLogger(), { writeBehind: false });
      await again.load();
      expect(await again.version(300)).toBe(5);
    });
  });
});
