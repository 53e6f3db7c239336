import { connectNatsBus } from '../src/bus';
it('debug', async () => {
  const before = process.getActiveResourcesInfo();
  const dying = await connectNatsBus({ url: 'nats://127.0.0.1:4222', name: 'dbg', prefix: 'dbgx' });
  await dying.subscribe({ durable: 'd', subjects: 'tasks.a', ackWaitMs: 1000, handler: () => new Promise<void>(() => {}) });
  await dying.publish('tasks.a', 1);
  await new Promise((r) => setTimeout(r, 300));
  await dying.connection.close();
  await new Promise((r) => setTimeout(r, 1500));
  console.log(before, process.getActiveResourcesInfo());
});
