import { createMemoryBus, type EventBus } from '@tollgate/kit';
import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { ActiveEndpoints } from '../../src/webhooks/active-endpoints';
import { EndpointRepo } from '../../src/webhooks/endpoint-repo';
import { webhookChangedSubject } from '../../src/webhooks/types';

// The fan-out's in-memory subscriptions, two "replicas" on one database and one bus: a change made
// on one is seen by the other once its webhooks.changed event arrives, and by itself at once.
describe('active webhook subscriptions in memory', () => {
  const database = useTestDatabase('tasks');
  let db: TasksDb;
  let bus: EventBus;
  let repo: EndpointRepo;
  let here: ActiveEndpoints;
  let there: ActiveEndpoints;
  let n = 0;

  beforeAll(async () => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    bus = createMemoryBus();
    repo = new EndpointRepo(db);
    here = new ActiveEndpoints(repo);
    there = new ActiveEndpoints(repo);
    await here.watch(bus);
    await there.watch(bus);
  });
  afterAll(async () => {
    await here?.stop();
    await there?.stop();
    await bus?.close();
    await db?.$disconnect();
  });

  const create = async (accountId: number, events: string[]) => (await repo.createWithin({ id: `wh_mem_${++n}`, accountId, url: 'https://example.com/hook', events, description: '', secret: 'whsec_x' }, 1_000))!;
  const announce = (id: string, accountId: number) => bus.publish(webhookChangedSubject(id), { id, account_id: accountId, change: 'updated', by_account_id: accountId, at: new Date().toISOString() });
  const ids = (xs: Array<{ id: string }>) => xs.map((x) => x.id).sort();
  /** What `read` answers once it equals `want` (the bus delivers the change event a moment later), or its last answer. */
  const settled = async (read: () => Promise<string[]>, want: string[]) => {
    let last: string[] = [];
    for (let i = 0; i < 100; i++) {
      last = await read();
      if (JSON.stringify(last) === JSON.stringify(want)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return last;
  };

  it('answers by account and event type from one read, and follows creations, disabling and deletions', async () => {
    if (!database.available) return;
    expect(await there.activeFor('task.completed', 41)).toEqual([]);
    const a = await create(41, ['task.completed']);
    const star = await create(41, ['*']);
    const other = await create(42, ['document.created']);
    // the replica that made the change forgets its copy at once
    here.forget();
    expect(ids(await here.activeFor('task.completed', 41))).toEqual(ids([a, star]));
    expect(ids(await here.activeFor('document.created'))).toEqual(ids([star, other]));
    // the other one still holds its copy until the change's event arrives
    expect(await there.activeFor('task.completed', 41)).toEqual([]);
    await announce(a.id, 41);
    expect(await settled(async () => ids(await there.activeFor('task.completed', 41)), ids([a, star]))).toEqual(ids([a, star]));

    await repo.update(a.id, { active: false });
    await repo.delete(star.id);
    await announce(a.id, 41);
    expect(await settled(async () => ids(await there.activeFor('task.completed', 41)), [])).toEqual([]);
    expect(ids(await there.activeFor('document.created'))).toEqual([other.id]);
  });

  it('reads the table again after its maximum age, even without an event', async () => {
    if (!database.available) return;
    const quick = new ActiveEndpoints(repo, 50);
    expect(await quick.activeFor('task.failed', 43)).toEqual([]);
    const e = await create(43, ['task.failed']);
    await new Promise((r) => setTimeout(r, 80));
    expect(ids(await quick.activeFor('task.failed', 43))).toEqual([e.id]);
  });
});
