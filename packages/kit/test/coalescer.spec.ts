import { Coalescer } from '../src/batch/coalescer';

/** A batch sender that holds each call until released, recording what it was sent. */
function gatedSender() {
  const calls: number[][] = [];
  const gates: Array<() => void> = [];
  const send = async (items: number[]) => {
    calls.push(items);
    await new Promise<void>((r) => gates.push(r));
    return items.map((i) => i * 10);
  };
  const releaseNext = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { calls, send, releaseNext };
}

describe('Coalescer', () => {
  it('sends the first item at once and everything that arrives meanwhile in the next batch, each answered with its own result', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const first = c.submit(1);
    const rest = [2, 3, 4].map((i) => c.submit(i));
    expect(s.calls).toEqual([[1]]);
    await s.releaseNext();
    expect(await first).toBe(10);
    await s.releaseNext();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(s.calls).toEqual([[1], [2, 3, 4]]);
  });

  it('cuts batches at their largest size', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 2);
    const all = [1, 2, 3, 4, 5, 6].map((i) => c.submit(i));
    for (let i = 0; i < 4; i++) await s.releaseNext();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(s.calls).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('fails every item of a failed batch, and goes on with the next', async () => {
    let n = 0;
    const c = new Coalescer(async (items: number[]) => {
      if (n++ === 0) throw new Error('billing away');
      return items;
    }, 10);
    const a = c.submit(1);
    const b = c.submit(2);
    await expect(a).rejects.toThrow('billing away');
    await expect(b).resolves.toBe(2);
  });

  it('refuses an answer with the wrong number of results rather than pairing them wrongly', async () => {
    const c = new Coalescer(async () => [1, 2], 10);
    await expect(c.submit(1)).rejects.toThrow('a batch of 1 was answered with 2 results');
  });
});

describe('Coalescer waits', () => {
  it('never sends an item whose wait ran out in the queue, and tells a sent one apart', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const first = c.submit(1, 10_000);
    const late = c.submit(2, 20); // queued behind the batch under way
    await expect(late).rejects.toMatchObject({ name: 'CoalescerTimeout', sent: false });
    const inFlight = c.submit(3, 10_000);
    await s.releaseNext();
    expect(await first).toBe(10);
    expect(s.calls).toEqual([[1], [3]]); // 2 was never sent
    const slow = c.submit(4, 20);
    await s.releaseNext(); // answers [3]; 4 goes out next and waits on the gate
    expect(await inFlight).toBe(30);
    await expect(slow).rejects.toMatchObject({ name: 'CoalescerTimeout', sent: true });
    await s.releaseNext();
    expect(s.calls).toEqual([[1], [3], [4]]);
  });

  it('with whileQueued, bounds only the wait to be sent: a sent item waits for its answer', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const first = c.submit(1, 20, { whileQueued: true });
    const queued = c.submit(2, 20, { whileQueued: true });
    await expect(queued).rejects.toMatchObject({ name: 'CoalescerTimeout', sent: false });
    await new Promise((r) => setTimeout(r, 40)); // past the sent item's wait
    await s.releaseNext();
    expect(await first).toBe(10);
    expect(s.calls).toEqual([[1]]);
  });
});

describe('Coalescer deferred items', () => {
  it('carries a deferred item with the next submitted one, in submission order, instead of sending it alone', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const deferred = c.defer(1, 10_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(s.calls).toEqual([]);
    const next = c.submit(2);
    expect(s.calls).toEqual([[1, 2]]);
    await s.releaseNext();
    expect(await Promise.all([deferred, next])).toEqual([10, 20]);
  });

  it('sends a deferred item on its own once its linger runs out', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const deferred = c.defer(1, 30);
    const second = c.defer(2, 10_000);
    expect(s.calls).toEqual([]);
    await s.releaseNext();
    expect(s.calls).toEqual([[1, 2]]);
    expect(await Promise.all([deferred, second])).toEqual([10, 20]);
  });

  it('puts a deferred item behind a batch under way into the next batch', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const first = c.submit(1);
    const deferred = c.defer(2, 10_000);
    await s.releaseNext();
    await s.releaseNext();
    expect(await Promise.all([first, deferred])).toEqual([10, 20]);
    expect(s.calls).toEqual([[1], [2]]);
  });

  it('flush sends what is deferred at once and resolves when it is answered', async () => {
    const s = gatedSender();
    const c = new Coalescer(s.send, 100);
    const deferred = c.defer(1, 10_000);
    const flushed = c.flush();
    expect(s.calls).toEqual([[1]]);
    await s.releaseNext();
    await flushed;
    expect(await deferred).toBe(10);
    await expect(c.flush()).resolves.toBeUndefined();
  });
});
