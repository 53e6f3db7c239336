import { createGrpcClient, type EventBus, type Logger, type Subscription } from '@tollgate/kit';
import { KeysClient } from '@tollgate/protos/keys';
import { WebhooksService } from '@tollgate/protos/webhooks';
import type { Registry } from 'prom-client';
import type { TasksDb } from '../repo/prisma-types';
import type { TaskRepo } from '../repo/task-repo';
import type { WebhooksContext } from './context';
import { DeliveryRepo } from './delivery-repo';
import { ActiveEndpoints } from './active-endpoints';
import { Dispatcher } from './dispatcher';
import { EndpointRepo } from './endpoint-repo';
import { consumeWebhookEvents } from './fanout';
import { WebhookMetrics } from './metrics';
import { Readers } from './readers';
import { webhooksServer } from './server';
import type { WebhookSettings } from './settings';

export { webhookEnvShape, webhookSettingsOf } from './config';

/** Webhooks inside the tasks service: the gRPC service, the event consumers and the dispatcher. */
export async function startWebhooks(opts: { db: TasksDb; bus: EventBus; log: Logger; metrics: Registry; tasks: TaskRepo; settings: WebhookSettings & { keysAddress: string } }) {
  const { db, bus, settings } = opts;
  const log = opts.log.child({ component: 'webhooks' });
  const endpoints = new EndpointRepo(db);
  const deliveries = new DeliveryRepo(db);
  const keys = createGrpcClient(KeysClient, settings.keysAddress, { timeoutMs: 5_000 });
  const active = new ActiveEndpoints(endpoints);
  const dispatcher = new Dispatcher(deliveries, endpoints, bus, new WebhookMetrics(opts.metrics), settings, log, () => active.forget());
  const ctx: WebhooksContext = { endpoints, active, deliveries, bus, settings, queued: () => dispatcher.poke(), log };
  dispatcher.start();
  let subscriptions: Subscription[] = [];
  try {
    await active.watch(bus);
    subscriptions = await consumeWebhookEvents(bus, { endpoints: active, deliveries, tasks: opts.tasks, readers: new Readers(keys), maxAttempts: settings.maxAttempts, queued: ctx.queued, log });
  } catch (err) {
    await active.stop();
    await dispatcher.stop();
    keys.close();
    throw err;
  }
  return {
    binding: { definition: WebhooksService, implementation: webhooksServer(ctx, log) },
    stop: async () => {
      for (const s of subscriptions) await s.stop();
      await active.stop();
      await dispatcher.stop();
      keys.close();
    },
  };
}
