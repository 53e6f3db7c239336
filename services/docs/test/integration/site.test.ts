import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ACTIVITY_SUBJECT, AppError, CONFIG_DEFAULTS, ErrorCode, HotPool, createGrpcClient, type ActivityEvent, type BusMessage, type ConfigChangedEvent, type GrpcClient } from '@tollgate/kit';
import { SiteClient } from '@tollgate/protos/site';
import { createDocsDb, type DocsDb } from '../../src/db';
import { ActivityRepo } from '../../src/site/activity-repo';
import { RequestRecorderRepo } from '../../src/site/request-recorder-repo';
import { eventually, startDocs, type DocsHarness } from './docs-harness';

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected the call to fail'); }, (e: unknown) => e as AppError);
const admin = { accountId: 1, isAdmin: true, apiKeyId: 0 };
const alice = { accountId: 7, isAdmin: false, apiKeyId: 0 };
const bob = { accountId: 8, isAdmin: false, apiKeyId: 0 };
const today = () => new Date().toISOString().slice(0, 10);
const batchId = () => `b-${randomUUID()}`;
const rec = (over: Partial<{ at: number; accountId: number; group: string; status: number; latencyMs: number; documentId: number }> = {}) => ({ at: Date.now(), accountId: 7, group: 'documents', status: 200, latencyMs: 5, documentId: 0, ...over });

// The Site service of the docs process over real gRPC and PostgreSQL: configuration, activity, analytics, rendering.
/** A report of a successful Analytics call, parsed from its JSON. */
/** Ends every other connection to the database's server-side sessions, as a restart would; how many. */
async function terminateConnections(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) t');
    return rows[0].n;
  } finally {
    await client.end();
  }
}
const parsed = async (p: Promise<{ reportJson: string }>) => ({ report: JSON.parse((await p).reportJson) });

describe('docs service: site (configuration, activity, analytics, rendering)', () => {
  let h: DocsHarness | null;
  let site: GrpcClient<SiteClient>;
  let db: DocsDb;
  let hot: HotPool;
  const configEvents: ConfigChangedEvent[] = [];
  beforeAll(async () => {
    h = await startDocs();
    if (!h) return;
    site = createGrpcClient(SiteClient, h.address, { timeoutMs: 10_000 });
    db = createDocsDb(h.databaseUrl);
    hot = new HotPool(h.databaseUrl, { max: 2, maxWaiting: 100 });
    await h.bus.subscribe<ConfigChangedEvent>({ durable: 'config-test', subjects: 'docs.config.changed', handler: async (m: BusMessage<ConfigChangedEvent>) => void configEvents.push(m.data) });
  });
  afterAll(async () => {
    site?.close();
    await hot?.end();
    await db?.$disconnect();
    await h?.stop();
  });

  describe('configuration', () => {
    it('answers defaults at version 0, then versions each change, keeps history and publishes the change', async () => {
      if (!h) return;
      const first = await site.getConfig({ section: 'theme' });
      expect(first).toMatchObject({ section: 'theme', version: 0, updatedBy: 0, updatedAt: '' });
      expect(first.value).toEqual(CONFIG_DEFAULTS.theme);
      const value = { ...CONFIG_DEFAULTS.theme, font: 'Inter, sans-serif', dark_mode_default: true };
      const saved = await site.putConfig({ actor: admin, section: 'theme', value, expectedVersion: 0 });
      expect(saved).toMatchObject({ version: 1, updatedBy: 1 });
      expect(saved.value).toEqual(value);
      const again = await site.putConfig({ actor: admin, section: 'theme', value: { ...value, font: 'Georgia' }, expectedVersion: 1 });
      expect(again.version).toBe(2);
      const history = await site.configHistory({ section: 'theme', page: { page: 1, pageSize: 10 } });
      expect(history.entries.map((e) => [e.version, e.value?.font])).toEqual([[2, 'Georgia'], [1, 'Inter, sans-serif']]);
      expect(history.page?.total).toBe(2);
      await eventually(() => (configEvents.filter((e) => e.section === 'theme').length === 2 ? true : undefined), 'the config change events');
      expect(configEvents.filter((e) => e.section === 'theme').map((e) => e.version)).toEqual([1, 2]);
    });

    it('refuses a stale version, a non-admin, an invalid value and an unknown section', async () => {
      if (!h) return;
      await site.putConfig({ actor: admin, section: 'site', value: { ...CONFIG_DEFAULTS.site, name: 'Docs' }, expectedVersion: 0 });
      const stale = await failure(site.putConfig({ actor: admin, section: 'site', value: CONFIG_DEFAULTS.site, expectedVersion: 0 }));
      expect(stale.code).toBe(ErrorCode.PreconditionFailed);
      expect(stale.message).toContain('version 1, not 0');
      const notAdmin = await failure(site.putConfig({ actor: alice, section: 'site', value: CONFIG_DEFAULTS.site, expectedVersion: 1 }));
      expect(notAdmin.code).toBe(ErrorCode.PermissionDenied);
      const invalid = await failure(site.putConfig({ actor: admin, section: 'theme', value: { ...CONFIG_DEFAULTS.theme, colors: { ...CONFIG_DEFAULTS.theme.colors, primary: 'blue' } }, expectedVersion: 2 }));
      expect(invalid.code).toBe(ErrorCode.InvalidArgument);
      expect(invalid.details.issues?.[0].loc).toEqual(['body', 'colors', 'primary']);
      const plugin = await failure(site.putConfig({ actor: admin, section: 'plugins', value: { ...CONFIG_DEFAULTS.plugins, mermaid: { enabled: true, settings: {} } }, expectedVersion: 0 }));
      expect(plugin.code).toBe(ErrorCode.InvalidArgument);
      expect((await failure(site.getConfig({ section: 'billing' }))).code).toBe(ErrorCode.NotFound);
      expect((await site.getConfig({ section: 'site' })).version).toBe(1);
    });
  });

  describe('activity', () => {
    const event = (over: Partial<ActivityEvent>): ActivityEvent => ({ id: randomUUID(), user_id: 7, type: 'document.created', target_type: 'document', target_id: '1', at: new Date().toISOString(), ip: '127.0.0.1', user_agent: 'jest', summary: 'created document 1', ...over });

    it('stores each event once, shows owners their own and admins everyone, filtered by type and date', async () => {
      if (!h) return;
      const once = event({ summary: 'created document 1 once' });
      await h.bus.publish(ACTIVITY_SUBJECT, once);
      await h.bus.publish(ACTIVITY_SUBJECT, once);
      await h.bus.publish(ACTIVITY_SUBJECT, event({ user_id: 8, type: 'key.deleted', target_type: 'key', target_id: '3', summary: 'deleted API key 3' }));
      const mine = await eventually(async () => {
        const r = await site.listActivity({ actor: alice, userId: 0, allUsers: false, type: '', from: '', to: '', page: { page: 1, pageSize: 20 } });
        return r.items.length > 0 ? r : undefined;
      }, 'the activity of alice');
      await eventually(async () => ((await site.listActivity({ actor: admin, userId: 0, allUsers: true, type: '', from: '', to: '', page: { page: 1, pageSize: 20 } })).items.length === 2 ? true : undefined), 'both items for the admin');
      expect(mine.items).toHaveLength(1);
      expect(mine.items[0]).toMatchObject({ userId: 7, type: 'document.created', targetType: 'document', targetId: '1', ip: '127.0.0.1', userAgent: 'jest', summary: 'created document 1 once' });
      const keys = await site.listActivity({ actor: admin, userId: 0, allUsers: true, type: 'key.deleted', from: '', to: '', page: { page: 1, pageSize: 20 } });
      expect(keys.items.map((i) => i.userId)).toEqual([8]);
      const future = await site.listActivity({ actor: admin, userId: 0, allUsers: true, type: '', from: '2999-01-01', to: '', page: { page: 1, pageSize: 20 } });
      expect(future.items).toHaveLength(0);
      const other = await failure(site.listActivity({ actor: alice, userId: 8, allUsers: false, type: '', from: '', to: '', page: { page: 1, pageSize: 20 } }));
      expect(other.code).toBe(ErrorCode.PermissionDenied);
      const badDate = await failure(site.listActivity({ actor: alice, userId: 0, allUsers: false, type: '', from: 'yesterday', to: '', page: { page: 1, pageSize: 20 } }));
      expect(badDate.code).toBe(ErrorCode.InvalidArgument);
    });

    it('stores a redelivered activity event once and counts a new account once', async () => {
      if (!h) return;
      const created = { id: randomUUID(), user_id: 1, type: 'user.created', target_type: 'user', target_id: '4711', at: new Date().toISOString(), ip: '', user_agent: '', summary: 'created user 4711' } satisfies ActivityEvent;
      await h.bus.publish(ACTIVITY_SUBJECT, created);
      await h.bus.publish(ACTIVITY_SUBJECT, created);
      const counted = async () => {
        const rows = await db.$queryRaw<Array<{ n: bigint | null }>>`SELECT sum(count) AS n FROM event_rollups WHERE metric = 'account.created' AND account_id = 4711 AND period_kind = 'd'`;
        return Number(rows[0]?.n ?? 0);
      };
      await eventually(async () => ((await counted()) >= 1 ? true : undefined), 'the new account counted');
      const repo = new ActivityRepo(db, hot);
      expect(await repo.record(created)).toBe(false);
      await new Promise((r) => setTimeout(r, 200));
      expect(await counted()).toBe(1);
      expect((await repo.list({ accountId: 1, type: 'user.created', offset: 0, limit: 50 })).rows.filter((r) => r.targetId === '4711')).toHaveLength(1);
    });

    it('stores an event at its own time, its long fields clipped, and a malformed time as now', async () => {
      if (!h) return;
      const repo = new ActivityRepo(db, hot);
      const at = new Date(Date.now() - 3_600_000).toISOString(); // within the retention the next test prunes by
      expect(await repo.record(event({ user_id: 77, at, summary: 'x'.repeat(600), user_agent: 'u'.repeat(600), target_id: "quote ' \" {}" }))).toBe(true);
      const before = Date.now();
      expect(await repo.record(event({ user_id: 77, at: 'not a time', summary: 'malformed' }))).toBe(true);
      const rows = (await repo.list({ accountId: 77, offset: 0, limit: 10 })).rows;
      const kept = rows.find((r) => r.summary.startsWith('x'))!;
      expect(kept.at.toISOString()).toBe(at);
      expect(kept.summary).toHaveLength(500);
      expect(kept.userAgent).toHaveLength(512);
      expect(kept.targetId).toBe("quote ' \" {}");
      const malformed = rows.find((r) => r.summary === 'malformed')!;
      expect(Math.abs(malformed.at.getTime() - before)).toBeLessThan(60_000);
    });

    it('forgets activity and raw request measurements past their retention, keeping the rollups', async () => {
      if (!h) return;
      const repo = new ActivityRepo(db, hot);
      const old = new Date(Date.now() - 10 * 86_400_000);
      await repo.record(event({ user_id: 99, at: old.toISOString(), summary: 'long ago' }));
      await repo.record(event({ user_id: 99, summary: 'recent' }));
      expect(await repo.prune(new Date(Date.now() - 5 * 86_400_000))).toBe(1);
      expect((await repo.list({ accountId: 99, offset: 0, limit: 10 })).rows.map((r) => r.summary)).toEqual(['recent']);

      await site.recordRequests({ batchId: batchId(), records: [rec({ at: old.getTime(), accountId: 99, group: 'search' })] });
      const recorder = new RequestRecorderRepo(db);
      expect(await recorder.prune(new Date(Date.now() - 5 * 86_400_000))).toBeGreaterThanOrEqual(1);
      const from = old.toISOString().slice(0, 10);
      const usage = await parsed(site.analytics({ actor: admin, report: 'usage', from, to: from, interval: 'day', userId: 99, limit: 0 }));
      expect(usage.report.total_requests).toBe(1);
    });
  });

  describe('analytics', () => {
    it('counts a batch once, by endpoint group and status class, per account and for everyone', async () => {
      if (!h) return;
      const id = batchId();
      const records = [rec({ accountId: 21 }), rec({ accountId: 21, status: 404 }), rec({ accountId: 22, group: 'search', status: 500 })];
      await site.recordRequests({ batchId: id, records });
      await site.recordRequests({ batchId: id, records });
      const all = await parsed(site.analytics({ actor: admin, report: 'usage', from: today(), to: today(), interval: 'hour', userId: 0, limit: 0 }));
      expect(all.report.by_group.documents).toBeGreaterThanOrEqual(2);
      const own = await parsed(site.analytics({ actor: { accountId: 21, isAdmin: false, apiKeyId: 0 }, report: 'usage', from: today(), to: today(), interval: 'day', userId: 0, limit: 0 }));
      expect(own.report).toMatchObject({ user_id: 21, total_requests: 2, by_group: { documents: 2 }, by_status_class: { '2xx': 1, '4xx': 1 } });
      expect(own.report.series).toHaveLength(2);
      const sneaky = await failure(site.analytics({ actor: { accountId: 21, isAdmin: false, apiKeyId: 0 }, report: 'usage', from: today(), to: today(), interval: 'day', userId: 22, limit: 0 }));
      expect(sneaky.code).toBe(ErrorCode.PermissionDenied);
      const badBatch = await failure(site.recordRequests({ batchId: 'x', records }));
      expect(badBatch.code).toBe(ErrorCode.InvalidArgument);
    });

    it('estimates latency percentiles and error rates per group from the rollups', async () => {
      if (!h) return;
      const records = Array.from({ length: 100 }, (_, i) => rec({ accountId: 31, group: 'users', latencyMs: i + 1, status: i < 10 ? 503 : 200 }));
      await site.recordRequests({ batchId: batchId(), records });
      const r = await parsed(site.analytics({ actor: admin, report: 'performance', from: today(), to: today(), interval: 'day', userId: 31, limit: 0 }));
      const users = r.report.groups.users;
      expect(users.requests).toBe(100);
      expect(users.error_rate).toBe(0.1);
      expect(users.p50_ms).toBeGreaterThan(50 * 0.85);
      expect(users.p50_ms).toBeLessThan(50 * 1.15);
      expect(users.p99_ms).toBeGreaterThan(99 * 0.85);
      expect(users.p99_ms).toBeLessThan(99 * 1.15);
    });

    it('reports active and new users, top users, document views and changes by category', async () => {
      if (!h) return;
      const doc = await h.client.createDocument({ actor: { accountId: 41, isAdmin: false, apiKeyId: 0 }, title: 'Counted', content: 'x', category: 'guides', tags: [], status: '', slug: '' });
      await h.client.updateDocument({ actor: { accountId: 41, isAdmin: false, apiKeyId: 0 }, id: doc.id, content: 'y', tags: [], tagsSet: false });
      await site.recordRequests({ batchId: batchId(), records: [rec({ accountId: 41, documentId: doc.id }), rec({ accountId: 41, documentId: doc.id }), rec({ accountId: 42, documentId: doc.id })] });
      await h.bus.publish(ACTIVITY_SUBJECT, { id: randomUUID(), user_id: 1, type: 'user.created', target_type: 'user', target_id: '42', at: new Date().toISOString(), ip: '', user_agent: '', summary: 'created user 42' } satisfies ActivityEvent);
      const bulk = await h.client.bulkCreateDocuments({ actor: { accountId: 43, isAdmin: false, apiKeyId: 0 }, documents: ['One', 'Two'].map((title) => ({ title, content: 'x', category: 'imported', tags: [], status: '', slug: '' })) });
      expect(bulk.results).toHaveLength(2);
      // changes are counted when their events are published (right after the commit, by the outbox relay)
      const content = await eventually(async () => {
        const r = await parsed(site.analytics({ actor: admin, report: 'content', from: today(), to: today(), interval: 'day', userId: 0, limit: 5 }));
        return r.report.totals.updated >= 1 && r.report.documents_created.some((c: { category: string }) => c.category === 'imported') ? r : undefined;
      }, 'the content changes in the content report');
      expect(content.report.documents_created).toEqual(expect.arrayContaining([expect.objectContaining({ category: 'imported', count: 2 })]));
      expect(content.report.top_documents[0]).toEqual({ document_id: doc.id, views: 3 });
      expect(content.report.documents_created).toEqual(expect.arrayContaining([expect.objectContaining({ category: 'guides' })]));
      expect(content.report.totals.updated).toBeGreaterThanOrEqual(1);
      const own = await parsed(site.analytics({ actor: { accountId: 41, isAdmin: false, apiKeyId: 0 }, report: 'content', from: today(), to: today(), interval: 'day', userId: 0, limit: 5 }));
      expect(own.report).toMatchObject({ total_views: 2, totals: { created: 1, updated: 1, deleted: 0 } });
      const users = await eventually(async () => {
        const r = await parsed(site.analytics({ actor: admin, report: 'users', from: today(), to: today(), interval: 'day', userId: 0, limit: 100 }));
        return r.report.series[0]?.new_users >= 1 ? r : undefined;
      }, 'the new user in the users report');
      expect(users.report.series[0].active_users).toBeGreaterThanOrEqual(2);
      expect(users.report.top_users).toEqual(expect.arrayContaining([{ user_id: 41, requests: 2 }, { user_id: 42, requests: 1 }]));
    });

    it('refuses bad dates, a reversed or too long range and an unknown report', async () => {
      if (!h) return;
      const ask = (over: Record<string, unknown>) => failure(site.analytics({ actor: admin, report: 'usage', from: '', to: '', interval: 'day', userId: 0, limit: 0, ...over }));
      expect((await ask({ from: '2026-02-30' })).code).toBe(ErrorCode.InvalidArgument);
      expect((await ask({ from: '2026-03-02', to: '2026-03-01' })).code).toBe(ErrorCode.InvalidArgument);
      expect((await ask({ from: '2026-01-01', to: '2026-03-01', interval: 'hour' })).details.issues?.[0].loc).toEqual(['query', 'from']);
      expect((await ask({ interval: 'week' })).code).toBe(ErrorCode.InvalidArgument);
      expect((await ask({ report: 'secrets' })).code).toBe(ErrorCode.NotFound);
    });

    it('keeps answering after PostgreSQL ends every connection of the service (a restart or an administrator)', async () => {
      if (!h) return;
      const usage = () => parsed(site.analytics({ actor: admin, report: 'usage', from: today(), to: today(), interval: 'day', userId: 0, limit: 0 }));
      await Promise.all([usage(), usage(), usage()]);
      const killed = await terminateConnections(h.databaseUrl);
      expect(killed).toBeGreaterThanOrEqual(3);
      // the idle connections learn of their end asynchronously; the service must neither crash nor keep them
      await new Promise((r) => setTimeout(r, 200));
      await expect(usage()).resolves.toMatchObject({ report: expect.objectContaining({ total_requests: expect.any(Number) }) });
    });
  });

  describe('rendering', () => {
    const markdown = [
      '# Guide',
      '',
      '## Install',
      '',
      'Run <script>alert(1)</script> and [click](javascript:alert(2)) or [docs](https://example.com). <img src=x onerror=alert(3)>',
      '',
      '![x](https://example.com/x.png)',
      '',
      '```js',
      'const answer = 42;',
      '```',
      '',
      '### Configure it',
    ].join('\n');

    it('renders sanitised HTML with a table of contents, heading anchors and highlighted code', async () => {
      if (!h) return;
      const doc = await h.client.createDocument({ actor: alice, title: 'Render me', content: markdown, category: '', tags: [], status: '', slug: '' });
      const r = await site.renderDocument({ actor: bob, id: doc.id });
      expect(r).toMatchObject({ id: doc.id, version: 1, title: 'Render me', plugins: ['heading_anchors', 'code_highlighting', 'table_of_contents'] });
      expect(r.toc).toEqual([{ level: 2, text: 'Install', anchor: 'install' }, { level: 3, text: 'Configure it', anchor: 'configure-it' }]);
      expect(r.html).toContain('<nav class="toc" aria-label="Table of contents"><ul><li class="toc-item"><a href="#install">Install</a></li>');
      expect(r.html).toMatch(/<h2 id="install"><a class="header-anchor" href="#install" aria-hidden="true">#<\/a> Install<\/h2>/);
      expect(r.html).toContain('<span class="hljs-keyword">const</span>');
      expect(r.html).toContain('<a href="https://example.com">docs</a>');
      expect(r.html).not.toMatch(/<script|href="javascript:|<[^>]*onerror/i);
      expect(r.html).toContain('&lt;script&gt;');
    });

    it('follows the plugins configuration and hides what the reader may not see', async () => {
      if (!h) return;
      const current = await site.getConfig({ section: 'plugins' });
      const off = { ...CONFIG_DEFAULTS.plugins, table_of_contents: { ...CONFIG_DEFAULTS.plugins.table_of_contents, enabled: false }, code_highlighting: { enabled: false, settings: { languages: [] } } };
      await site.putConfig({ actor: admin, section: 'plugins', value: off, expectedVersion: current.version });
      const doc = await h.client.createDocument({ actor: alice, title: 'Plain', content: markdown, category: '', tags: [], status: '', slug: '' });
      const r = await site.renderDocument({ actor: alice, id: doc.id });
      expect(r.plugins).toEqual(['heading_anchors']);
      expect(r.toc).toEqual([]);
      expect(r.html).not.toContain('<nav');
      expect(r.html).not.toContain('hljs');
      const draft = await h.client.createDocument({ actor: alice, title: 'Secret', content: 'x', category: '', tags: [], status: 'draft', slug: '' });
      expect((await failure(site.renderDocument({ actor: bob, id: draft.id }))).code).toBe(ErrorCode.NotFound);
      expect((await failure(site.renderDocument({ actor: bob, id: 999_999 }))).code).toBe(ErrorCode.NotFound);
    });
  });
});
