import { createGrpcClient, checkGrpcHealth, type GrpcClient } from '@tollgate/kit';
import { KeysClient } from '@tollgate/protos/keys';
import { BillingClient } from '@tollgate/protos/billing';
import { TasksClient } from '@tollgate/protos/tasks';
import { DocsClient } from '@tollgate/protos/docs';
import { SearchClient } from '@tollgate/protos/search';
import { SiteClient } from '@tollgate/protos/site';
import { WebhooksClient } from '@tollgate/protos/webhooks';
import type { GatewayConfig } from './config';

export interface Upstreams {
  keys: GrpcClient<KeysClient>;
  billing: GrpcClient<BillingClient>;
  tasks: GrpcClient<TasksClient>;
  docs: GrpcClient<DocsClient>;
  search: GrpcClient<SearchClient>;
  /** Configuration, activity, analytics and rendering: served by the docs service, at its address. */
  site: GrpcClient<SiteClient>;
  /** Served by the tasks service. */
  webhooks: GrpcClient<WebhooksClient>;
  addresses: Record<UpstreamName, string>;
  close(): void;
}

export type UpstreamName = 'keys' | 'billing' | 'tasks' | 'docs' | 'search';

export function connectUpstreams(config: GatewayConfig): Upstreams {
  const timeoutMs = config.GRPC_DEADLINE_MS;
  const addresses: Record<UpstreamName, string> = {
    keys: config.KEYS_GRPC_ADDR,
    billing: config.BILLING_GRPC_ADDR,
    tasks: config.TASKS_GRPC_ADDR,
    docs: config.DOCS_GRPC_ADDR,
    search: config.SEARCH_GRPC_ADDR,
  };
  const clients = {
    keys: createGrpcClient(KeysClient, addresses.keys, { timeoutMs }),
    billing: createGrpcClient(BillingClient, addresses.billing, { timeoutMs }),
    tasks: createGrpcClient(TasksClient, addresses.tasks, { timeoutMs }),
    docs: createGrpcClient(DocsClient, addresses.docs, { timeoutMs }),
    search: createGrpcClient(SearchClient, addresses.search, { timeoutMs }),
    site: createGrpcClient(SiteClient, addresses.docs, { timeoutMs }),
    webhooks: createGrpcClient(WebhooksClient, addresses.tasks, { timeoutMs }),
  };
  return {
    ...clients,
    addresses,
    close: () => Object.values(clients).forEach((c) => c.close()),
  };
}

/** Health of every upstream, by name; ready only when all are SERVING. */
export async function upstreamHealth(upstreams: Upstreams): Promise<Record<UpstreamName, boolean>> {
  const entries = await Promise.all(
    (Object.entries(upstreams.addresses) as Array<[UpstreamName, string]>).map(async ([name, addr]) => [name, await checkGrpcHealth(addr)] as const),
  );
  return Object.fromEntries(entries) as Record<UpstreamName, boolean>;
}
