import { createMemoryBus } from '../src/bus';

// A retry timer can fire before Date.now() reaches the retry's time (timers run on a monotonic
// clock, Date.now on the wall clock, which may step back). The message must still be redelivered.
it('redelivers when the retry timer fires before the wall clock reaches the retry time', async () => {
  const bus = createMemoryBus();
  const realNow = Date.now;
  const seen: boolean[] = [];
  try {
    await bus.subscribe({
      durable: 'clock-skew',
      subjects: 'tasks.status.clock-skew',
      handler: async (m) => {
        seen.push(m.redelivered);
        if (seen.length === 1) {
          // After the retry is scheduled, the wall clock steps back half a second.
          setTimeout(() => (Date.now = () => realNow() - 500), 10);
          throw new Error('first attempt fails');
        }
      },
    });
    await bus.publish('tasks.status.clock-skew', { v: 1 });
    const deadline = realNow() + 5_000;
    while (seen.length < 2 && realNow() < deadline) await new Promise((r) => setTimeout(r, 20));
  } finally {
    Date.now = realNow;
    await bus.close();
  }
  expect(seen).toEqual([false, true]);
});
