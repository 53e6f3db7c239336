import { createHook } from 'node:async_hooks';
import { connectNatsBus } from '../src/bus';
it('debug', async () => {
  const live = new Map<number, string>();
  const hook = createHook({
    init(id, type) { if (!['PROMISE'].includes(type)) live.set(id, type + new Error().stack!.split('\n').slice(5, 12).join('\n')); },
    destroy(id) { live.delete(id); },
  }).enable();
  const dying = await connectNatsBus({ url: 'nats://127.0.0.1:4222', name: 'dbg', prefix: 'dbgx' });
  await dying.subscribe({ durable: 'd', subjects: 'tasks.a', ackWaitMs: 1000, handler: () => new Promise<void>(() => {}) });
  await dying.publish('tasks.a', 1);
  await new Promise((r) => setTimeout(r, 300));
  await dying.connection.close();
  await new Promise((r) => setTimeout(r, 3000));
  hook.disable();
  console.log(dying.connection.isClosed(), [...live.values()].join('\n----\n'));
});
