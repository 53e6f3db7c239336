import type { EventBus, Logger } from '@tollgate/kit';
import type { ActiveEndpoints } from './active-endpoints';
import type { DeliveryRepo } from './delivery-repo';
import type { EndpointRepo } from './endpoint-repo';
import type { WebhookSettings } from './settings';

/** What the webhook use cases are built from. */
export interface WebhooksContext {
  endpoints: EndpointRepo;
  /** The fan-out's in-memory copy of the active subscriptions; forgotten on every change. */
  active: ActiveEndpoints;
  deliveries: DeliveryRepo;
  bus: EventBus;
  settings: WebhookSettings;
  /** Wakes the dispatcher after a delivery was queued. */
  queued: () => void;
  log: Logger;
}
