import { TASK_KINDS, type CallSettings, type TaskKind } from '@tollgate/kit';
import type { App } from '@tollgate/protos/tasks';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { KeyPrincipal } from '../auth/api-key';

const MODEL_ID = new RegExp(`^(${TASK_KINDS.join('|')})/([^/]{1,64})$`);
const PAGE_SIZE = 100;

/** An app as an OpenAI model id: `<kind>/<app_id>` (e.g. `agent/demo-agent`). */
export const modelIdOf = (kind: string, appId: string): string => `${kind}/${appId}`;

/** `<kind>/<app_id>` → its parts; null for anything else (a provider's model name, a bare app id). */
export function parseModelId(model: unknown): { kind: TaskKind; appId: string } | null {
  const match = typeof model === 'string' ? MODEL_ID.exec(model) : null;
  return match ? { kind: match[1] as TaskKind, appId: match[2] } : null;
}

/** The task kinds a key may run: its channel's kinds that its account's permissions allow (all four for an admin account). */
export function runnableKinds(principal: KeyPrincipal): TaskKind[] {
  const permissions = principal.account.permissions;
  return TASK_KINDS.filter((kind) => principal.key.allowedKinds.includes(kind) && (permissions?.admin === true || (permissions?.kinds ?? []).includes(kind)));
}

/** Every app the key may run: for each runnable kind, the apps its account may see (its own, the public ones; all for an admin). */
export async function runnableApps(deps: GatewayDeps, principal: KeyPrincipal, call: CallSettings): Promise<App[]> {
  const apps: App[] = [];
  for (const kind of runnableKinds(principal)) {
    for (let page = 1; ; page++) {
      const out = await deps.upstreams.tasks.listApps({ actor: principal.actor, page: { page, pageSize: PAGE_SIZE }, kind }, call);
      apps.push(...out.items);
      if (out.items.length < PAGE_SIZE || page * PAGE_SIZE >= (out.page?.total ?? 0)) break;
    }
  }
  return apps;
}

export const modelSchema = z.object({
  id: z.string().describe('`<kind>/<app_id>`: the `model` of POST /v1/chat/completions'),
  object: z.literal('model'),
  created: z.number().int().describe('the app’s creation time, Unix seconds'),
  owned_by: z.string().describe('`tollgate` for the built-in apps, else `account:<id>`'),
  kind: z.string(),
  app_id: z.string(),
  name: z.string(),
});
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });

/** The OpenAI model object of an app. */
export const modelJson = (app: App): z.infer<typeof modelSchema> => ({
  id: modelIdOf(app.kind, app.appId),
  object: 'model',
  created: Math.floor(Date.parse(app.createdAt) / 1000) || 0,
  owned_by: app.ownerAccountId ? `account:${app.ownerAccountId}` : 'tollgate',
  kind: app.kind,
  app_id: app.appId,
  name: app.name,
});
