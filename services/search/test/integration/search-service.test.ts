import { createGrpcClient, createMemoryBus, silentLogger, type EventBus, type GrpcClient, type ServiceHandle } from '@tollgate/kit';
import { createTestDatabase, dropTestDatabase, releaseTestPostgres } from '@tollgate/kit/src/testing/postgres';
import { DocsClient } from '@tollgate/protos/docs';
import { SearchClient } from '@tollgate/protos/search';
import { docsService } from '../../../docs/src/service';
import { loadDocsConfig } from '../../../docs/src/config';
import { searchService } from '../../src/service';
import { loadSearchConfig } from '../../src/config';

const actor = { accountId: 1, isAdmin: false, apiKeyId: 0 };
const fields = { category: 'guides', tags: ['t'], status: '', slug: '' };

async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The search service over gRPC with the real docs service: rebuilds from StreamAllDocuments, at
// start and on demand, and catches up on events it did not receive.
describe('search service', () => {
  let urls: string[] = [];
  let docsBus: EventBus;
  let searchBus: EventBus;
  let docsHandle: ServiceHandle;
  let docs: GrpcClient<DocsClient>;
  let available = false;

  const startSearch = async (url: string) => {
    const handle = await searchService.start(loadSearchConfig({ DATABASE_URL: url, GRPC_PORT: '0', DOCS_GRPC_ADDR: docsHandle.address }), { bus: searchBus, log: silentLogger() });
    return { handle, client: createGrpcClient(SearchClient, handle.address) };
  };
  const ids = async (client: GrpcClient<SearchClient>, q: string) => (await client.search({ actor, q, page: { page: 1, pageSize: 50 } })).hits.map((h) => h.id);

  beforeAll(async () => {
    const docsUrl = await createTestDatabase('docs');
    const searchUrl = await createTestDatabase('search');
    if (!docsUrl || !searchUrl) return;
    available = true;
    urls = [docsUrl, searchUrl];
    // Two separate buses: the search service never hears the docs service's events here.
    docsBus = createMemoryBus();
    searchBus = createMemoryBus();
    docsHandle = await docsService.start(loadDocsConfig({ DATABASE_URL: docsUrl, GRPC_PORT: '0' }), { bus: docsBus, log: silentLogger() });
    docs = createGrpcClient(DocsClient, docsHandle.address);
  });
  afterAll(async () => {
    docs?.close();
    await docsHandle?.stop();
    await docsBus?.close();
    await searchBus?.close();
    for (const url of urls) await dropTestDatabase(url);
    await releaseTestPostgres();
  });

  it('builds the embedded index from the docs service at start, and rebuilds it on demand', async () => {
    if (!available) return;
    const live = await docs.createDocument({ actor, title: 'Platypus handbook', content: 'All about the platypus.', ...fields });
    const draft = await docs.createDocument({ actor, title: 'Platypus draft', content: 'platypus', ...fields, status: 'draft' });
    const trashed = await docs.createDocument({ actor, title: 'Platypus trash', content: 'platypus', ...fields });
    await docs.deleteDocument({ actor, id: trashed.id, permanent: false });

    const { handle, client } = await startSearch(urls[1]);
    try {
      await eventually(async () => ((await client.status({})).ready ? true : undefined), 'the initial build');
      expect(await client.status({})).toEqual({ engine: 'embedded', documents: 1, ready: true });
      expect(await ids(client, 'platypus')).toEqual([live.id]);
      expect(await ids(client, 'platypus')).not.toContain(draft.id);

      const later = await docs.createDocument({ actor, title: 'Platypus appendix', content: 'more platypus', ...fields });
      await docs.deleteDocument({ actor, id: live.id, permanent: true });
      expect(await ids(client, 'platypus')).toEqual([live.id]);
      const rebuilt = await client.rebuild({});
      expect(rebuilt.indexed).toBe(1);
      expect(await ids(client, 'platypus')).toEqual([later.id]);
    } finally {
      client.close();
      await handle.stop();
    }
  });

  it('records each search for analytics', async () => {
    if (!available) return;
    const { handle, client } = await startSearch(urls[1]);
    try {
      await eventually(async () => ((await client.status({})).ready ? true : undefined), 'the initial build');
      const before = await client.analytics({ actor, from: '', to: '', limit: 10, interval: 'day', accountId: 0 });
      await client.search({ actor, q: 'Platypus', page: { page: 1, pageSize: 5 } });
      await client.advancedSearch({ actor, query: 'no such animal', categories: [], tags: [], sort: '', limit: 5, page: 1 });
      const report = await client.analytics({ actor, from: '', to: '', limit: 10, interval: 'day', accountId: 0 });
      expect(report.topQueries.map((q) => q.query)).toEqual(expect.arrayContaining(['platypus', 'no such animal']));
      expect(report.zeroResultQueries.map((q) => q.query)).toEqual(['no such animal']);
      expect(report.total - before.total).toBe(2);
      expect(report.zeroResultTotal - before.zeroResultTotal).toBe(1);
      expect(report.volume).toHaveLength(1);
      expect(report.volume[0]).toMatchObject({ count: report.total, zeroResults: 1 });
      expect(report.volume[0].period).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    } finally {
      client.close();
      await handle.stop();
    }
  });
});
