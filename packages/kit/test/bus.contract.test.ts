import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { connectNatsBus, connectPortBus, createMemoryBus, serveBusOnPort, type BusMessage, type EventBus, type NatsBus } from '../src/bus';
import { natsTestsCanRun, natsUrlForTests, warnNatsSkipped } from '../src/testing/nats';

async function eventually(check: () => void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Harness {
  /** A bus for this test; closed after it. */
  bus(): Promise<EventBus>;
}

function contract(h: Harness): void {
  const uid = () => randomUUID().slice(0, 8);

  it('delivers a published message with exactly the headers it was given', async () => {
    const bus = await h.bus();
    const got: Array<BusMessage<{ n: number }>> = [];
    const id = uid();
    await bus.subscribe<{ n: number }>({ durable: `rt-${id}`, subjects: `tasks.status.${id}`, handler: async (m) => void got.push(m) });
    await bus.publish(`tasks.status.${id}`, { n: 1 }, { headers: { 'x-request-id': 'req-1', 'x-extra': 'v' } });
    await bus.publish(`tasks.status.${id}`, { n: 2 });
    await eventually(() => expect(got).toHaveLength(2));
    expect(got[0]).toMatchObject({ subject: `tasks.status.${id}`, data: { n: 1 }, redelivered: false });
    expect(got[0].headers).toEqual({ 'x-request-id': 'req-1', 'x-extra': 'v' });
    expect(got[0].seq).toBeGreaterThan(0);
    expect(got[1]).toMatchObject({ data: { n: 2 } });
    expect(got[1].headers['x-request-id']).toBeUndefined();
    expect(got[1].seq).toBeGreaterThan(got[0].seq);
  });

  it('matches * and > filters across streams', async () => {
    const bus = await h.bus();
    const id = uid();
    const got: string[] = [];
    await bus.subscribe({ durable: `wc-${id}`, subjects: [`docs.${id}.*`, `keys.${id}.>`], handler: async (m) => void got.push(m.subject) });
    for (const s of [`docs.${id}.created`, `docs.${id}.x.y`, `docs.other.created`, `keys.${id}.a`, `keys.${id}.a.b`, `docs.${id}.deleted`]) await bus.publish(s, {});
    await eventually(() => expect(got).toHaveLength(4));
    await tick(100);
    expect(got.sort()).toEqual([`docs.${id}.created`, `docs.${id}.deleted`, `keys.${id}.a`, `keys.${id}.a.b`]);
  });

  it('rejects a subject that no stream holds', async () => {
    const bus = await h.bus();
    await expect(bus.publish('nowhere.at.all', {})).rejects.toThrow(/no stream/);
    await expect(bus.subscribe({ durable: 'x', subjects: 'nowhere.>', handler: async () => {} })).rejects.toThrow(/no stream/);
  });

  it('redelivers a message whose handler threw', async () => {
    const bus = await h.bus();
    const id = uid();
    const seen: BusMessage[] = [];
    await bus.subscribe({
      durable: `rd-${id}`,
      subjects: `tasks.status.${id}`,
      handler: async (m) => {
        seen.push(m);
        if (seen.length === 1) throw new Error('first attempt fails');
      },
    });
    await bus.publish(`tasks.status.${id}`, { v: 'x' });
    await eventually(() => expect(seen).toHaveLength(2));
    expect(seen.map((m) => m.redelivered)).toEqual([false, true]);
    expect(seen[1].seq).toBe(seen[0].seq);
    expect(seen[1].data).toEqual({ v: 'x' });
  });

  it('keeps a durable position across stop and resubscribe', async () => {
    const bus = await h.bus();
    const id = uid();
    const got: number[] = [];
    const opts = { durable: `dur-${id}`, subjects: `tasks.status.${id}`, handler: async (m: BusMessage<number>) => void got.push(m.data) };
    const first = await bus.subscribe(opts);
    await bus.publish(`tasks.status.${id}`, 1);
    await eventually(() => expect(got).toEqual([1]));
    await first.stop();
    await bus.publish(`tasks.status.${id}`, 2);
    await bus.publish(`tasks.status.${id}`, 3);
    await tick(50);
    expect(got).toEqual([1]);
    await bus.subscribe(opts);
    await eventually(() => expect(got).toEqual([1, 2, 3]));
  });

  it('starts a new durable at the next message with deliverNew, at the oldest without', async () => {
    const bus = await h.bus();
    const id = uid();
    await bus.publish(`tasks.status.${id}`, 'old');
    const fresh: string[] = [];
    const all: string[] = [];
    await bus.subscribe({ durable: `new-${id}`, subjects: `tasks.status.${id}`, deliverNew: true, handler: async (m: BusMessage<string>) => void fresh.push(m.data) });
    await bus.subscribe({ durable: `all-${id}`, subjects: `tasks.status.${id}`, handler: async (m: BusMessage<string>) => void all.push(m.data) });
    await bus.publish(`tasks.status.${id}`, 'new');
    await eventually(() => expect(all).toEqual(['old', 'new']));
    await eventually(() => expect(fresh).toEqual(['new']));
  });

  it('shares one durable between subscribers: each message handled once', async () => {
    const a = await h.bus();
    const b = await h.bus();
    const id = uid();
    const byA: number[] = [];
    const byB: number[] = [];
    const into = (list: number[]) => async (m: BusMessage<number>) => {
      await tick(5);
      list.push(m.data);
    };
    await a.subscribe({ durable: `q-${id}`, subjects: `tasks.submitted.${id}`, handler: into(byA) });
    await b.subscribe({ durable: `q-${id}`, subjects: `tasks.submitted.${id}`, handler: into(byB) });
    const n = 40;
    for (let i = 0; i < n; i++) await a.publish(`tasks.submitted.${id}`, i);
    await eventually(() => expect(byA.length + byB.length).toBe(n));
    await tick(100);
    expect([...byA, ...byB].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
  });

  it('watch sees live messages only, and nothing after stop', async () => {
    const bus = await h.bus();
    const id = uid();
    await bus.publish(`keys.changed.${id}`, 'before');
    const got: BusMessage<string>[] = [];
    const sentinel: string[] = [];
    const w = await bus.watch<string>(`keys.changed.${id}`, (m) => void got.push(m));
    await bus.watch<string>([`keys.changed.${id}`, 'keys.other'], (m) => void sentinel.push(m.data));
    await bus.publish(`keys.changed.${id}`, 'live', { headers: { 'x-request-id': 'w-1' } });
    await eventually(() => expect(got.map((m) => m.data)).toEqual(['live']));
    expect(got[0]).toMatchObject({ subject: `keys.changed.${id}`, headers: { 'x-request-id': 'w-1' }, redelivered: false });
    await w.stop();
    await bus.publish(`keys.changed.${id}`, 'after');
    await eventually(() => expect(sentinel).toEqual(['live', 'after']));
    expect(got.map((m) => m.data)).toEqual(['live']);
  });

  it('stores a message once per msgId', async () => {
    const bus = await h.bus();
    const id = uid();
    await bus.publish(`docs.document.${id}`, 'first', { msgId: `m-${id}` });
    await bus.publish(`docs.document.${id}`, 'again', { msgId: `m-${id}` });
    await bus.publish(`docs.document.${id}`, 'other', { msgId: `n-${id}` });
    await bus.publish(`docs.document.${id}`, 'end');
    const got: string[] = [];
    await bus.subscribe({ durable: `dd-${id}`, subjects: `docs.document.${id}`, handler: async (m: BusMessage<string>) => void got.push(m.data) });
    await eventually(() => expect(got).toContain('end'));
    expect(got).toEqual(['first', 'other', 'end']);
  });

  it('keeps order per subject', async () => {
    const bus = await h.bus();
    const id = uid();
    const got: Record<string, number[]> = { a: [], b: [] };
    await bus.subscribe({
      durable: `ord-${id}`,
      subjects: `tasks.status.${id}.*`,
      handler: async (m: BusMessage<number>) => {
        await tick(Math.random() * 3);
        got[m.subject.split('.').pop()!].push(m.data);
      },
    });
    const n = 30;
    for (let i = 0; i < n; i++) {
      await bus.publish(`tasks.status.${id}.a`, i);
      await bus.publish(`tasks.status.${id}.b`, i);
    }
    const expected = Array.from({ length: n }, (_, i) => i);
    await eventually(() => expect(got).toEqual({ a: expected, b: expected }));
  });
}

describe('memory bus', () => {
  const buses: EventBus[] = [];
  let shared: EventBus;
  beforeEach(() => {
    shared = createMemoryBus();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });
  contract({
    bus: async () => {
      buses.push(shared);
      return shared;
    },
  });
});

// The bus as threads share it: the memory bus in one thread, each "thread" a MessagePort client.
describe('memory bus over a MessagePort', () => {
  let host: EventBus;
  const ports: MessagePort[] = [];
  const clients: EventBus[] = [];
  beforeEach(() => {
    host = createMemoryBus();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const p of ports.splice(0)) p.close();
    await host.close();
  });
  contract({
    bus: async () => {
      const { port1, port2 } = new MessageChannel();
      void serveBusOnPort(host, port2);
      ports.push(port1, port2);
      const client = connectPortBus(port1);
      clients.push(client);
      return client;
    },
  });

  it('carries data as the bus encodes it: Dates as ISO strings, toJSON applied', async () => {
    const { port1, port2 } = new MessageChannel();
    void serveBusOnPort(host, port2);
    ports.push(port1, port2);
    const client = connectPortBus(port1);
    clients.push(client);
    const id = randomUUID().slice(0, 8);
    const got: unknown[] = [];
    await host.subscribe({ durable: `enc-${id}`, subjects: `tasks.status.${id}`, handler: async (m) => void got.push(m.data) });
    await client.publish(`tasks.status.${id}`, { at: new Date(Date.UTC(2026, 0, 2)), amount: { toJSON: () => '1.50' } });
    await eventually(() => expect(got).toEqual([{ at: '2026-01-02T00:00:00.000Z', amount: '1.50' }]));
  });

  it('redelivers what a thread that went away never acked to the next subscriber', async () => {
    const { port1, port2 } = new MessageChannel();
    const served = serveBusOnPort(host, port2);
    const gone = connectPortBus(port1);
    const id = randomUUID().slice(0, 8);
    let started!: () => void;
    const inHandler = new Promise<void>((r) => (started = r));
    await gone.subscribe({ durable: `gone-${id}`, subjects: `tasks.status.${id}`, handler: () => { started(); return new Promise<void>(() => {}); } });
    await host.publish(`tasks.status.${id}`, { n: 1 });
    await inHandler;
    port1.close(); // the thread dies mid-handler
    await served;
    const got: number[] = [];
    const channel = new MessageChannel();
    void serveBusOnPort(host, channel.port2);
    ports.push(channel.port1, channel.port2);
    const next = connectPortBus(channel.port1);
    clients.push(next);
    await next.subscribe<{ n: number }>({ durable: `gone-${id}`, subjects: `tasks.status.${id}`, handler: async (m) => void got.push(m.data.n) });
    await eventually(() => expect(got).toEqual([1]), 15_000);
  });
});

describe('memory bus retention', () => {
  const gated = () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    return { gate, release };
  };

  it('a durable that falls behind by more than maxMessagesPerStream still gets every message, in order', async () => {
    const bus = createMemoryBus({ maxMessagesPerStream: 5 });
    try {
      const got: number[] = [];
      const { gate, release } = gated();
      await bus.subscribe<{ n: number }>({ durable: 'slow', subjects: 'docs.ret.*', handler: async (m) => { await gate; got.push(m.data.n); } });
      for (let n = 1; n <= 3_000; n++) await bus.publish('docs.ret.x', { n });
      release();
      await eventually(() => expect(got).toHaveLength(3_000));
      expect(got).toEqual(Array.from({ length: 3_000 }, (_, i) => i + 1));
    } finally {
      await bus.close();
    }
  });

  it('keeps only the newest maxMessagesPerStream messages once every durable has passed them', async () => {
    const bus = createMemoryBus({ maxMessagesPerStream: 5 });
    try {
      const got: number[] = [];
      await bus.subscribe<{ n: number }>({ durable: 'keeping-up', subjects: 'docs.kept.*', handler: async (m) => void got.push(m.data.n) });
      for (let n = 1; n <= 3_000; n++) await bus.publish('docs.kept.x', { n });
      await eventually(() => expect(got).toHaveLength(3_000));
      await bus.publish('docs.kept.x', { n: 3_001 });
      await eventually(() => expect(got).toHaveLength(3_001));
      const late: number[] = [];
      await bus.subscribe<{ n: number }>({ durable: 'late', subjects: 'docs.kept.*', handler: async (m) => void late.push(m.data.n) });
      await eventually(() => expect(late).toEqual([2_997, 2_998, 2_999, 3_000, 3_001]));
    } finally {
      await bus.close();
    }
  });

  it('refuses a publish while maxPendingPerStream messages wait for a durable, and takes publishes again once it catches up', async () => {
    const bus = createMemoryBus({ maxMessagesPerStream: 5, maxPendingPerStream: 50 });
    try {
      const got: number[] = [];
      const { gate, release } = gated();
      await bus.subscribe<{ n: number }>({ durable: 'stuck', subjects: 'docs.full.*', handler: async (m) => { await gate; got.push(m.data.n); } });
      const accepted: number[] = [];
      const refusals: string[] = [];
      for (let n = 1; n <= 80; n++) {
        await bus.publish('docs.full.x', { n }).then(
          () => void accepted.push(n),
          (err: Error) => void refusals.push(err.message),
        );
      }
      expect(accepted.length).toBeGreaterThanOrEqual(50);
      expect(accepted.length).toBeLessThan(80);
      expect(refusals[0]).toMatch(/DOCS is full/);
      // Another stream is not held up by this one.
      await expect(bus.publish('tasks.status.other', {})).resolves.toBeUndefined();
      release();
      await eventually(() => expect(got).toEqual(accepted));
      await bus.publish('docs.full.x', { n: 81 });
      await eventually(() => expect(got.at(-1)).toBe(81));
    } finally {
      await bus.close();
    }
  });
});

describe('PublishOptions.onConsumed on the in-process bus', () => {
  it('is called once every durable consumer of the subject acknowledged it, at once when none holds it, and after a drop at maxDeliver', async () => {
    const bus = createMemoryBus();
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      await bus.subscribe({ durable: 'a', subjects: 'docs.oc.*', handler: () => gate });
      await bus.subscribe({ durable: 'b', subjects: 'docs.oc.x', handler: async () => {} });
      await bus.subscribe({ durable: 'c', subjects: 'docs.other.*', handler: async () => {} });
      await bus.subscribe({ durable: 'd', subjects: 'docs.oc.failing', maxDeliver: 2, handler: async () => { throw new Error('no'); } });
      const consumed: string[] = [];
      await bus.publish('docs.oc.x', {}, { onConsumed: () => consumed.push('x') });
      await bus.publish('docs.nobody.y', {}, { onConsumed: () => consumed.push('nobody') });
      await bus.publish('docs.oc.failing', {}, { onConsumed: () => consumed.push('failing') });
      await tick(50);
      // 'x' waits for a (gated); 'failing' for a (gated) and d's two failed deliveries.
      expect(consumed).toEqual(['nobody']);
      release();
      await eventually(() => expect([...consumed].sort()).toEqual(['failing', 'nobody', 'x']), 5_000);
    } finally {
      await bus.close();
    }
  });

  it('tells a duplicate publish (same msgId) when the copy already stored is safe, not before', async () => {
    const bus = createMemoryBus();
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      await bus.subscribe({ durable: 'a', subjects: 'docs.dup.*', handler: () => gate });
      const consumed: string[] = [];
      await bus.publish('docs.dup.x', { n: 1 }, { msgId: 'dup-1', onConsumed: () => consumed.push('first') });
      await bus.publish('docs.dup.x', { n: 1 }, { msgId: 'dup-1', onConsumed: () => consumed.push('again') });
      await tick(50);
      expect(consumed).toEqual([]);
      release();
      await eventually(() => expect(consumed).toEqual(['first', 'again']), 5_000);
      // Published again once the first copy was safe: told at once.
      await bus.publish('docs.dup.x', { n: 1 }, { msgId: 'dup-1', onConsumed: () => consumed.push('late') });
      await eventually(() => expect(consumed).toEqual(['first', 'again', 'late']), 5_000);
    } finally {
      await bus.close();
    }
  });

  it('reaches a publisher in a worker thread through the port bus, a duplicate publish included', async () => {
    const host = createMemoryBus();
    const { port1, port2 } = new MessageChannel();
    void serveBusOnPort(host, port2);
    const worker = connectPortBus(port1);
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      await host.subscribe({ durable: 'slow', subjects: 'docs.port.*', handler: () => gate });
      let consumed = 0;
      await worker.publish('docs.port.x', { n: 1 }, { msgId: 'port-1', onConsumed: () => void consumed++ });
      await worker.publish('docs.port.x', { n: 1 }, { msgId: 'port-1', onConsumed: () => void consumed++ });
      await tick(50);
      expect(consumed).toBe(0);
      release();
      await eventually(() => expect(consumed).toBe(2), 5_000);
    } finally {
      await worker.close();
      await host.close();
      port1.close();
    }
  });
});

const natsRuns = natsTestsCanRun();
if (!natsRuns) warnNatsSkipped('NATS bus contract tests');

(natsRuns ? describe : describe.skip)('nats bus', () => {
  const prefix = `t${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const buses: NatsBus[] = [];
  let url: string;

  beforeAll(async () => {
    const found = await natsUrlForTests();
    if (!found) throw new Error('NATS looked available but natsUrlForTests() found none');
    url = found;
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });
  afterAll(async () => {
    const bus = await connectNatsBus({ url, name: 'bus-test-cleanup', prefix });
    const jsm = await jetstreamManager(bus.connection);
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
    await bus.close();
  });

  const open = async () => {
    const bus = await connectNatsBus({ url, name: 'bus-test', prefix });
    buses.push(bus);
    return bus;
  };

  contract({ bus: open });

  it('calls onConsumed as soon as JetStream stored the message (it is on disk for every consumer), and for a duplicate of a stored one', async () => {
    const bus = await open();
    const id = randomUUID().slice(0, 8);
    let consumed = 0;
    await bus.publish(`tasks.status.${id}`, { n: 1 }, { msgId: `oc-${id}`, onConsumed: () => void consumed++ });
    expect(consumed).toBe(1);
    await bus.publish(`tasks.status.${id}`, { n: 1 }, { msgId: `oc-${id}`, onConsumed: () => void consumed++ });
    expect(consumed).toBe(2);
  });

  it('redelivers to a new connection what a dead connection never acked', async () => {
    const dying = await connectNatsBus({ url, name: 'bus-test-dying', prefix });
    const id = randomUUID().slice(0, 8);
    const first: BusMessage[] = [];
    const opts = { durable: `death-${id}`, subjects: `tasks.status.${id}`, ackWaitMs: 1_000 };
    await dying.subscribe({ ...opts, handler: (m) => (first.push(m), new Promise<void>(() => {})) });
    const survivor = await open();
    await survivor.publish(`tasks.status.${id}`, { job: 1 });
    await eventually(() => expect(first).toHaveLength(1));
    await dying.connection.close();
    const second: BusMessage[] = [];
    await survivor.subscribe({ ...opts, handler: async (m) => void second.push(m) });
    await eventually(() => expect(second).toHaveLength(1));
    expect(second[0]).toMatchObject({ seq: first[0].seq, data: { job: 1 }, redelivered: true });
  });

  it('recreates a durable consumer deleted from under a subscriber', async () => {
    const bus = await open();
    const id = randomUUID().slice(0, 8);
    const got: number[] = [];
    await bus.subscribe({ durable: `gone-${id}`, subjects: `tasks.status.${id}`, handler: async (m: BusMessage<number>) => void got.push(m.data) });
    await bus.publish(`tasks.status.${id}`, 1);
    await eventually(() => expect(got).toEqual([1]));
    const jsm = await jetstreamManager(bus.connection);
    await jsm.consumers.delete(`${prefix}_TASKS`, `gone-${id}--tasks_status_${id}`);
    await bus.publish(`tasks.status.${id}`, 2);
    await eventually(() => expect(got).toContain(2), 30_000);
  }, 40_000);

  it('isolates prefixes: another prefix sees none of these messages', async () => {
    const bus = await open();
    const other = await connectNatsBus({ url, name: 'bus-test-other', prefix: `${prefix}x` });
    buses.push(other);
    const id = randomUUID().slice(0, 8);
    const got: unknown[] = [];
    await other.watch(`tasks.status.${id}`, (m) => void got.push(m.data));
    const mine: unknown[] = [];
    await bus.watch(`tasks.status.${id}`, (m) => void mine.push(m.data));
    await bus.publish(`tasks.status.${id}`, 1);
    await other.publish(`tasks.status.${id}`, 2);
    await eventually(() => expect(mine).toEqual([1]));
    await eventually(() => expect(got).toEqual([2]));
  });
});
