import type { BillingLink, EventBus, Logger } from '@tollgate/kit';
import type { GatewayConfig } from './config';
import type { RouteBook } from './http/route-book';
import type { AccountCache, KeyCache } from './auth/key-cache';
import type { Upstreams } from './upstreams';
import type { GatewayMetrics } from './metrics/gateway-metrics';
import type { RequestRecorder } from './analytics/request-recorder';
import type { RateCounter } from './limits/rate-counter';
import type { SignInLimiter } from './limits/sign-in-limit';

/** What route modules are built from. Later pieces (caches, limiters, the bus) are added here. */
export interface GatewayDeps {
  config: GatewayConfig;
  log: Logger;
  upstreams: Upstreams;
  bus: EventBus;
  /** Every public route is added through it: validation and the OpenAPI document from one schema. */
  book: RouteBook;
  /** Verified API keys, dropped on keys.changed events; absent = no caching. */
  keyCache?: KeyCache;
  /** Accounts of user tokens (docs API, key management), dropped on keys.changed events; absent = no caching. */
  accountCache?: AccountCache;
  /** This instance's Prometheus registry and HTTP metrics; createGatewayApp makes one when absent. */
  metrics?: GatewayMetrics;
  /** The port the HTTPS listener got (HTTPS_PORT may be 0); set once it listens. */
  httpsPort?: number;
  /** Docs API hourly counts, coalesced per bucket; made on first use when absent. */
  docsRateCounter?: RateCounter;
  /** Request analytics buffer; absent = requests are not recorded (e.g. an app built without a gateway). */
  recorder?: RequestRecorder;
  /** Failed console sign-ins and current-password checks; made on first use when absent. */
  signInLimiter?: SignInLimiter;
  /** Admissions and settlements of provider passthrough calls, in order; made on first use when absent. */
  billingLink?: BillingLink;
}
