import { startDocs, eventually, type DocsHarness } from './docs-harness';
import { Client } from 'pg';
import { createMemoryBus, silentLogger } from '@tollgate/kit';
import { createDocsDb, type DocsDb } from '../../src/db';
import { OutboxRelay } from '../../src/outbox/relay';
import { OutboxRepo } from '../../src/repo/outbox-repo';

const alice = { accountId: 1, isAdmin: false, apiKeyId: 0 };
const fields = { content: 'body', category: 'c', tags: [], status: '', slug: '' };

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
/** Rows the plan's scans read: what they returned plus what their filters threw away. */
function rowsScanned(node: PlanNode): number {
  const own = node['Node Type'].includes('Scan') ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + rowsScanned(p), 0);
}

// Every change writes its event in the same transaction; the relay publishes the outbox to the bus.
describe('docs outbox relay', () => {
  let h: DocsHarness | null;
  let db: DocsDb;
  beforeAll(async () => {
    h = await startDocs();
    if (h) db = createDocsDb(h.databaseUrl);
  });
  const afterDown: Array<() => void> = [];
  afterEach(() => afterDown.splice(0).forEach((f) => f()));
  afterAll(async () => {
    await db?.$disconnect();
    await h?.stop();
  });

  it('publishes created, updated and deleted events in order with the document versions', async () => {
    if (!h) return;
    const doc = await h.client.createDocument({ actor: alice, title: 'Evented', ...fields });
    await h.client.updateDocument({ actor: alice, id: doc.id, title: 'Evented 2', tags: [], tagsSet: false });
    await h.client.deleteDocument({ actor: alice, id: doc.id, permanent: false });
    await h.client.restoreDocument({ actor: alice, id: doc.id });
    await h.client.deleteDocument({ actor: alice, id: doc.id, permanent: true });
    const mine = await eventually(() => {
      const list = h!.events.filter((e) => e.id === doc.id);
      return list.length === 5 ? list : undefined;
    }, 'five events');
    expect(mine.map((e) => [e.change, e.version])).toEqual([
      ['created', 1],
      ['updated', 2],
      ['deleted', 3],
      ['updated', 4],
      ['deleted', 5],
    ]);
    expect(mine[1].document).toMatchObject({ title: 'Evented 2', status: 'published', author_account_id: 1, deleted_at: null });
    expect(mine[2].document?.deleted_at).toEqual(expect.any(String));
    expect(mine[4].document).toBeUndefined();
    await eventually(async () => (await db.outboxEvent.count({ where: { publishedAt: null } })) === 0, 'outbox marked published');
  });

  it('keeps events written while the bus is down and publishes them once it is back', async () => {
    if (!h) return;
    h.bus.down = true;
    const created = await h.client.createDocument({ actor: alice, title: 'Written during an outage', ...fields });
    await h.client.updateDocument({ actor: alice, id: created.id, content: 'still down', tags: [], tagsSet: false });
    await eventually(async () => (await db.outboxEvent.count({ where: { publishedAt: null } })) === 2 || undefined, 'two pending rows');
    expect(h.events.some((e) => e.id === created.id)).toBe(false);

    h.bus.down = false;
    const mine = await eventually(() => {
      const list = h!.events.filter((e) => e.id === created.id);
      return list.length === 2 ? list : undefined;
    }, 'events after the outage');
    expect(mine.map((e) => e.version)).toEqual([1, 2]);
    await eventually(async () => (await db.outboxEvent.count({ where: { publishedAt: null } })) === 0 || undefined, 'outbox drained');
  });

  it('marks a row published only once the in-process bus says its durable consumers have it, so a relay started after a kill publishes it again', async () => {
    if (!h) return;
    // The harness's own relay stays out of it (its bus is down): only the two relays below publish.
    h.bus.down = true;
    afterDown.push(() => (h!.bus.down = false));
    const row = await db.outboxEvent.create({ data: { subject: 'docs.document.updated', payload: { change: 'updated', id: 987_654, version: 1, at: new Date().toISOString() } } });
    const isPublished = async () => (await db.outboxEvent.findUnique({ where: { id: row.id } }))?.publishedAt !== null;
    // The process that dies: its consumer never finishes with the event.
    const dying = createMemoryBus();
    let unblock!: () => void;
    const blocked = new Promise<void>((r) => (unblock = r));
    let taken = false;
    await dying.subscribe({
      durable: 'fanout',
      subjects: 'docs.document.*',
      handler: (m) => {
        if ((m.data as { id?: number }).id !== 987_654) return Promise.resolve();
        taken = true;
        return blocked;
      },
    });
    const before = new OutboxRelay(new OutboxRepo(db), dying, silentLogger(), { pollMs: 60_000, batch: 100 });
    // (the harness's relay may hold the row's lock for a moment: drain again until it went out)
    await eventually(async () => (await before.drain(), taken || undefined), 'the event on the dying bus');
    await before.drain();
    expect(await isPublished()).toBe(false);

    const restarted = createMemoryBus();
    const got: number[] = [];
    await restarted.subscribe<{ id: number }>({ durable: 'fanout', subjects: 'docs.document.*', handler: async (m) => void got.push(m.data.id) });
    const after = new OutboxRelay(new OutboxRepo(db), restarted, silentLogger(), { pollMs: 60_000, batch: 100 });
    await eventually(async () => (await after.drain(), got.includes(987_654) || undefined), 'the event on the restarted bus');
    await eventually(async () => (await after.drain(), (await isPublished()) || undefined), 'the row marked published');
    unblock();
    await Promise.all([dying.close(), restarted.close()]);
  });

  it('claims only rows it has not published: thousands of events awaiting a slow consumer are not read again by every claim', async () => {
    if (!h) return;
    // The harness's own relay stays out of it (its bus is down): only the relay below publishes.
    h.bus.down = true;
    afterDown.push(() => (h!.bus.down = false));
    const slow = createMemoryBus();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const acked = new Set<number>();
    await slow.subscribe<{ id: number }>({ durable: 'indexer', subjects: 'docs.document.*', handler: async (m) => (await held, void acked.add(m.data.id)) });
    const repo = new OutboxRepo(db);
    const relay = new OutboxRelay(repo, slow, silentLogger(), { pollMs: 60_000, batch: 100 });
    let published = 0;
    const drained = async (n: number, sweep = false) => ((published += await relay.drain({ sweep })), published >= n || undefined);
    // An id taken by a transaction that commits only after the rows below it went out.
    const [{ id: lateId }] = await db.$queryRaw<Array<{ id: bigint }>>`SELECT nextval(pg_get_serial_sequence('outbox_events', 'id')) AS id`;
    await db.$executeRaw`INSERT INTO outbox_events (subject, payload) SELECT 'docs.document.updated', jsonb_build_object('change', 'updated', 'id', 500000 + g, 'version', 1, 'at', now()::text) FROM generate_series(1, 3000) g`;
    // (the harness's relay may hold some rows' locks for a moment while it fails: the sweep finds those)
    await eventually(() => drained(3000, true), 'three thousand events on the bus, awaiting the slow consumer');

    // What the next claim reads, measured by PostgreSQL: the row written since, not the 3,000 awaiting acks.
    await db.outboxEvent.create({ data: { subject: 'docs.document.updated', payload: { change: 'updated', id: 600_001, version: 1, at: new Date().toISOString() } } });
    const claim = repo.claimStatement(relay.publishedUpTo, 100);
    const plan = await db.$queryRawUnsafe<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`EXPLAIN (ANALYZE, FORMAT JSON) ${claim.text}`, ...claim.values);
    expect(rowsScanned(plan[0]['QUERY PLAN'][0].Plan)).toBeLessThan(10);
    await eventually(() => drained(3001), 'the new row published');

    // The late row commits below what went out: a plain drain does not read there, the poll's sweep finds it.
    await db.outboxEvent.create({ data: { id: lateId, subject: 'docs.document.updated', payload: { change: 'updated', id: 600_002, version: 1, at: new Date().toISOString() } } });
    expect(await relay.drain()).toBe(0);
    await eventually(() => drained(3002, true), 'the late row published by the sweep');
    expect(await relay.drain({ sweep: true })).toBe(0);

    release();
    await eventually(async () => (await relay.drain(), (await db.outboxEvent.count({ where: { publishedAt: null } })) === 0 || undefined), 'every row marked once the consumer acked');
    expect(acked.size).toBe(3002);
    await slow.close();
  });

  it('marks one batch at a time: events consumed while a mark waits are marked together after it, not in transactions queuing beside it', async () => {
    if (!h) return;
    h.bus.down = true;
    afterDown.push(() => (h!.bus.down = false));
    const bus = createMemoryBus();
    await bus.subscribe({ durable: 'indexer', subjects: 'docs.document.*', handler: async () => undefined });
    const relay = new OutboxRelay(new OutboxRepo(db), bus, silentLogger(), { pollMs: 60_000, batch: 100 });
    const counted = async () => Number((await db.$queryRaw<Array<{ n: bigint | null }>>`SELECT sum(count) AS n FROM event_rollups WHERE metric = 'document.created' AND dim = 'one-mark' AND period_kind = 'd' AND account_id = 0`)[0].n ?? 0);
    const waitingMarks = async () =>
      Number((await db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%event_rollups%'`)[0].n);
    // The content analytics rows are held by another transaction, as a long report or a slow disk would.
    const holder = new Client({ connectionString: h.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE event_rollups IN EXCLUSIVE MODE');
    const drains: Array<Promise<number>> = [];
    for (let i = 0; i < 5; i++) {
      await db.outboxEvent.create({ data: { subject: 'docs.document.created', payload: { change: 'created', id: 700_000 + i, version: 1, at: new Date().toISOString(), actor_account_id: 1, category: 'one-mark' } } });
      drains.push(relay.drain());
      await new Promise((r) => setTimeout(r, 150));
    }
    await eventually(async () => (await waitingMarks()) >= 1 || undefined, 'a mark waiting for the lock');
    await new Promise((r) => setTimeout(r, 200));
    expect(await waitingMarks()).toBe(1);
    await holder.query('COMMIT');
    await holder.end();
    // (the harness's relay, failing on its downed bus, may have held one row's lock as a drain passed it: a later sweep publishes that one)
    let published = (await Promise.all(drains)).reduce((a, b) => a + b, 0);
    await eventually(async () => ((published += await relay.drain({ sweep: true })), published >= 5 || undefined), 'all five published');
    expect(published).toBe(5);
    await eventually(async () => (await counted()) === 5 || undefined, 'five creations counted');
    expect(await db.outboxEvent.count({ where: { publishedAt: null } })).toBe(0);
    await bus.close();
  });

  it('writes no event for a change that rolled back', async () => {
    if (!h) return;
    const before = await db.outboxEvent.count();
    await h.client.createDocument({ actor: alice, title: 'Taken', ...fields, slug: 'taken-slug' }).catch(() => undefined);
    const after1 = await db.outboxEvent.count();
    await expect(h.client.createDocument({ actor: alice, title: 'Taken', ...fields, slug: 'taken-slug' })).rejects.toThrow('already used');
    expect(await db.outboxEvent.count()).toBe(after1);
    expect(after1).toBe(before + 1);
  });

  it('counts each change in the content analytics once, when its event is published; never an event written before events carried their actor', async () => {
    if (!h) return;
    const counted = async (metric: string, category: string) => {
      const rows = await db.$queryRaw<Array<{ n: bigint | null }>>`SELECT sum(count) AS n FROM event_rollups WHERE metric = ${metric} AND dim = ${category} AND period_kind = 'd' AND account_id = 0`;
      return Number(rows[0]?.n ?? 0);
    };
    h.bus.down = true;
    const doc = await h.client.createDocument({ actor: alice, title: 'Counted on publication', ...fields, category: 'counted' });
    await h.client.updateDocument({ actor: alice, id: doc.id, content: 'again', tags: [], tagsSet: false });
    // an event of the earlier format (no actor_account_id): its change was counted when it was written
    await db.outboxEvent.create({ data: { subject: 'docs.document.updated', payload: { change: 'updated', id: doc.id, version: 9, at: new Date().toISOString() } } });
    await eventually(async () => (await db.outboxEvent.count({ where: { publishedAt: null } })) === 3 || undefined, 'three pending rows');
    expect(await counted('document.created', 'counted')).toBe(0);

    h.bus.down = false;
    await eventually(async () => (await db.outboxEvent.count({ where: { publishedAt: null } })) === 0 || undefined, 'outbox drained');
    expect(await counted('document.created', 'counted')).toBe(1);
    expect(await counted('document.updated', 'counted')).toBe(1);
    const own = await db.$queryRaw<Array<{ n: bigint }>>`SELECT sum(count) AS n FROM event_rollups WHERE metric = 'document.created' AND dim = 'counted' AND period_kind = 'h' AND account_id = ${alice.accountId}`;
    expect(Number(own[0].n)).toBe(1);
  });
});
