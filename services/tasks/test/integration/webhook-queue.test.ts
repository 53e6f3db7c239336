import { useTestDatabase } from '@tollgate/kit/src/testing/postgres';
import { createTasksDb, type TasksDb } from '../../src/db';
import { DeliveryRepo } from '../../src/webhooks/delivery-repo';
import { EndpointRepo } from '../../src/webhooks/endpoint-repo';
import { deliveryIdOf, eventIdOf } from '../../src/webhooks/event-body';
import type { AttemptOutcome } from '../../src/webhooks/sender';
import type { NewDelivery } from '../../src/webhooks/types';

const failed = (statusCode = 500): AttemptOutcome => ({ statusCode, latencyMs: 3, responseBody: 'no', error: `HTTP ${statusCode}`, ok: false });
const ok: AttemptOutcome = { statusCode: 200, latencyMs: 2, responseBody: 'ok', error: '', ok: true };
const NONE_BUSY = { targets: [], accounts: [] };

// The deliveries table as a durable queue on real PostgreSQL: idempotent enqueue, exclusive claims,
// attempts logged with the delivery's next state, subscriptions disabled after failing long enough.
describe('webhook delivery queue', () => {
  const database = useTestDatabase('tasks');
  let db: TasksDb;
  let endpoints: EndpointRepo;
  let deliveries: DeliveryRepo;
  let n = 0;

  beforeAll(() => {
    if (!database.available) return;
    db = createTasksDb(database.url);
    endpoints = new EndpointRepo(db);
    deliveries = new DeliveryRepo(db);
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  const endpoint = async () => (await endpoints.createWithin({ id: `wh_test_${++n}`, accountId: 7, url: 'https://example.com/hook', events: ['*'], description: '', secret: 'whsec_x' }, 1_000))!;
  const delivery = (endpointId: string, key = `k${++n}`): NewDelivery => {
    const eventId = eventIdOf(key);
    return { id: deliveryIdOf(eventId, endpointId), eventId, eventType: 'ping', endpointId, accountId: 7, url: 'https://example.com/hook', body: '{}', maxAttempts: 3 };
  };
  const drain = async (owner: string) => {
    for (let d = await deliveries.claimNext(owner, 60_000, NONE_BUSY); d; d = await deliveries.claimNext(owner, 60_000, NONE_BUSY)) {
      await deliveries.record(d, owner, ok, { status: 'succeeded' }, 60_000);
    }
  };

  it('queues an event once for a target however often it is handed over', async () => {
    if (!database.available) return;
    const e = await endpoint();
    const d = delivery(e.id, 'same event');
    await deliveries.enqueue([d]);
    await deliveries.enqueue([d, d]);
    expect(await db.webhookDelivery.count({ where: { eventId: d.eventId } })).toBe(1);
    await drain('cleanup');
  });

  it('lets exactly one of several concurrent claimers take a due delivery, and skips busy targets', async () => {
    if (!database.available) return;
    const e = await endpoint();
    await deliveries.enqueue([delivery(e.id)]);
    const claims = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => deliveries.claimNext(owner, 60_000, NONE_BUSY)));
    expect(claims.filter((c) => c !== null)).toHaveLength(1);

    const other = await endpoint();
    await deliveries.enqueue([delivery(other.id)]);
    expect(await deliveries.claimNext('x', 60_000, { targets: [other.id], accounts: [] })).toBeNull();
    expect(await deliveries.claimNext('x', 60_000, { targets: [], accounts: [7] })).toBeNull();
    const taken = await deliveries.claimNext('x', 60_000, NONE_BUSY);
    expect(taken?.endpointId).toBe(other.id);
    // A claim whose lease expired is taken again (a replica that died mid-attempt).
    await db.webhookDelivery.update({ where: { id: taken!.id }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
    expect((await deliveries.claimNext('y', 60_000, NONE_BUSY))?.id).toBe(taken!.id);
    const firstIndex = claims.findIndex((c) => c !== null);
    await deliveries.record(claims[firstIndex]!, ['a', 'b', 'c', 'd'][firstIndex], ok, { status: 'succeeded' }, 60_000);
    await deliveries.record(taken!, 'y', ok, { status: 'succeeded' }, 60_000);
  });

  it('logs each attempt with the next retry, and an attempt whose claim was lost records nothing', async () => {
    if (!database.available) return;
    const e = await endpoint();
    const d = delivery(e.id);
    await deliveries.enqueue([d]);
    const claimed = (await deliveries.claimNext('w', 60_000, NONE_BUSY))!;
    const next = new Date(Date.now() + 60_000);
    await deliveries.record(claimed, 'w', failed(502), { status: 'pending', nextAttemptAt: next }, 60_000);
    const after = (await deliveries.find(d.id))!;
    expect(after).toMatchObject({ status: 'pending', attempts: 1, leaseOwner: null });
    expect(after.nextAttemptAt?.getTime()).toBe(next.getTime());
    expect(after.attemptLog.map((a) => [a.number, a.statusCode, a.responseBody])).toEqual([[1, 502, 'no']]);
    expect((await endpoints.find(e.id))!.failingSince).not.toBeNull();
    expect(await deliveries.claimNext('w', 60_000, NONE_BUSY)).toBeNull(); // not due yet

    await deliveries.record(claimed, 'someone-else', failed(), { status: 'failed' }, 60_000);
    expect((await deliveries.find(d.id))!.attempts).toBe(1);

    const again = await deliveries.redeliver(d.id);
    expect(again).toMatchObject({ status: 'pending', maxAttempts: 2 });
    const c2 = (await deliveries.claimNext('w', 60_000, NONE_BUSY))!;
    await deliveries.record(c2, 'w', ok, { status: 'succeeded' }, 60_000);
    expect((await endpoints.find(e.id))!.failingSince).toBeNull();
  });

  it('disables a subscription once its failures have lasted long enough, and its deliveries wait until it is re-enabled', async () => {
    if (!database.available) return;
    const e = await endpoint();
    await deliveries.enqueue([delivery(e.id), delivery(e.id)]);
    const one = (await deliveries.claimNext('z', 60_000, NONE_BUSY))!;
    expect((await deliveries.record(one, 'z', failed(503), { status: 'failed' }, 0)).disabled).toBe(false); // starts the failing stretch
    const two = (await deliveries.claimNext('z', 60_000, NONE_BUSY))!;
    await db.webhookEndpoint.update({ where: { id: e.id }, data: { failingSince: new Date(Date.now() - 10_000) } });
    expect((await deliveries.record(two, 'z', failed(503), { status: 'pending', nextAttemptAt: new Date() }, 5_000)).disabled).toBe(true);
    const disabled = (await endpoints.find(e.id))!;
    expect(disabled.active).toBe(false);
    expect(disabled.disabledReason).toMatch(/HTTP 503/);
    expect(await deliveries.claimNext('z', 60_000, NONE_BUSY)).toBeNull();

    await endpoints.update(e.id, { active: true });
    expect(await endpoints.find(e.id)).toMatchObject({ active: true, disabledReason: '', failingSince: null });
    expect((await deliveries.claimNext('z', 60_000, NONE_BUSY))?.id).toBe(two.id);
  });
});
