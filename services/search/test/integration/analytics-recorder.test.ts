import type { Logger } from '@tollgate/kit';
import { silentLogger } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createSearchDb, type SearchDb } from '../../src/db';
import { AnalyticsRepo } from '../../src/analytics/analytics-repo';
import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder';

const rec = (query: string, at: Date) => ({ query, kind: 'search' as const, resultCount: query.length, latencyMs: 1.4, accountId: 7, at });

// Batched analytics writes against the real search_queries table.
describe('analytics recorder', () => {
  const database = useTestDatabase('search');
  let db: SearchDb;

  beforeAll(() => {
    if (!database.available) return;
    db = createSearchDb(database.url);
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it('buffers records off the query path and writes them all, with the time each search ran, on flush', async () => {
    if (!database.available) return;
    const recorder = new AnalyticsRecorder(new AnalyticsRepo(db), silentLogger(), { maxBatch: 2, delayMs: 60_000, maxBuffered: 100 });
    const at = new Date(Date.UTC(2025, 5, 1, 10, 0, 0));
    const before = await db.searchQuery.count();
    for (let i = 0; i < 5; i++) recorder.record(rec(`batched ${i}`, new Date(at.getTime() + i * 1000)));
    await recorder.flush();
    const rows = await db.searchQuery.findMany({ where: { query: { startsWith: 'batched ' } }, orderBy: { createdAt: 'asc' } });
    expect(await db.searchQuery.count()).toBe(before + 5);
    expect(rows.map((r) => r.query)).toEqual(['batched 0', 'batched 1', 'batched 2', 'batched 3', 'batched 4']);
    expect(rows[3]).toMatchObject({ kind: 'search', resultCount: 9, latencyMs: 1, accountId: 7, createdAt: new Date(at.getTime() + 3000) });
    await recorder.flush();
    expect(await db.searchQuery.count()).toBe(before + 5);
  });

  it('writes a batch whose records lack an account or a time, and text that needs quoting, exactly as given', async () => {
    if (!database.available) return;
    const repo = new AnalyticsRepo(db);
    const t0 = Date.now();
    const odd = ['quote " and \\ backslash', "it's {braces}, commas", 'NULL', '', 'ünïcödé 搜索'];
    await repo.recordMany(odd.map((query, i) => ({ query, kind: 'advanced' as const, resultCount: i, latencyMs: 2.6, ...(i % 2 === 0 ? { accountId: 3, at: new Date(Date.UTC(2025, 0, 2, 3, 4, 5, i)) } : {}) })));
    const rows = await db.searchQuery.findMany({ where: { kind: 'advanced' }, orderBy: { resultCount: 'asc' } });
    expect(rows.map((r) => r.query)).toEqual(odd);
    expect(rows.map((r) => r.accountId)).toEqual([3, null, 3, null, 3]);
    expect(rows[0]).toMatchObject({ latencyMs: 3, createdAt: new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 0)) });
    expect(rows[1].createdAt.getTime()).toBeGreaterThanOrEqual(t0 - 1000);
    expect(rows[1].createdAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('keeps at most maxBuffered records, dropping the oldest', async () => {
    if (!database.available) return;
    const warnings: unknown[] = [];
    const log = { ...silentLogger(), warn: (o: unknown) => void warnings.push(o) } as unknown as Logger;
    const recorder = new AnalyticsRecorder(new AnalyticsRepo(db), log, { maxBatch: 100, delayMs: 60_000, maxBuffered: 2 });
    for (const q of ['capped a', 'capped b', 'capped c']) recorder.record(rec(q, new Date()));
    await recorder.flush();
    const rows = await db.searchQuery.findMany({ where: { query: { startsWith: 'capped ' } } });
    expect(rows.map((r) => r.query).sort()).toEqual(['capped b', 'capped c']);
    expect(warnings).toHaveLength(1);
  });

  it('logs a failed write and never throws to the caller', async () => {
    if (!database.available) return;
    const broken = createSearchDb(database.url.replace(/\/([^/?]+)(\?|$)/, '/no_such_database_here$2'));
    const errors: unknown[] = [];
    const log = { ...silentLogger(), error: (o: unknown) => void errors.push(o) } as unknown as Logger;
    const recorder = new AnalyticsRecorder(new AnalyticsRepo(broken), log, { maxBatch: 10, delayMs: 60_000, maxBuffered: 100 });
    recorder.record(rec('lost', new Date()));
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    await broken.$disconnect();
  });
});
