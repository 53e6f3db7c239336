import { Router, type Response } from 'express';
import { z } from 'zod';
import { TASK_KINDS } from '@tollgate/kit';
import type { App } from '@tollgate/protos/tasks';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { decimalInt } from '../http/form-numbers';
import { rpcFor } from '../http/request-id';

const PROVIDERS = ['echo', 'openai-compatible', 'external'] as const;

const appJson = (a: App) => ({
  app_id: a.appId,
  kind: a.kind,
  name: a.name,
  owner_account_id: a.ownerAccountId || null,
  provider: a.provider,
  model: a.model,
  system_prompt: a.systemPrompt,
  settings: a.settings ?? {},
  public: a.public,
  base_url: a.baseUrl,
  has_api_key: a.hasApiKey,
  timeout_ms: a.timeoutMs,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
  ...(a.reporterToken && { reporter_token: a.reporterToken }),
});

const appSchema = z.object({
  app_id: z.string(),
  kind: z.enum(TASK_KINDS),
  name: z.string(),
  owner_account_id: z.number().int().nullable(),
  provider: z.enum(PROVIDERS),
  model: z.string(),
  system_prompt: z.string(),
  settings: z.record(z.string(), z.unknown()),
  public: z.boolean(),
  base_url: z.string(),
  has_api_key: z.boolean(),
  timeout_ms: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  reporter_token: z.string().optional().describe('external apps: shown on creation and rotation only'),
});

const editable = {
  name: z.string().min(1).max(200),
  provider: z.enum(PROVIDERS),
  model: z.string().max(200),
  system_prompt: z.string().max(100_000),
  settings: z.record(z.string(), z.unknown()),
  public: z.boolean().describe('admins only'),
  base_url: z.string().max(2_000).describe('openai-compatible: the upstream base URL, e.g. https://api.openai.com/v1'),
  api_key: z.string().max(2_000).describe('openai-compatible: the upstream key; stored, never returned'),
  timeout_ms: z.number().int().min(0).max(600_000).describe('upstream call timeout; 0 = the service default'),
};
const createBody = z.object({
  app_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/),
  kind: z.enum(TASK_KINDS),
  ...editable,
  provider: editable.provider.default('echo'),
  model: editable.model.default(''),
  system_prompt: editable.system_prompt.default(''),
  settings: editable.settings.default({}),
  public: editable.public.default(false),
  base_url: editable.base_url.default(''),
  api_key: editable.api_key.default(''),
  timeout_ms: editable.timeout_ms.default(0),
});
/** Unknown fields, and app_id or kind (they never change), are refused rather than ignored. */
const patchBody = z.object(editable).partial().strict();
const appPath = z.object({ app_id: z.string().min(1).max(64) });
const listQuery = z.object({ page: decimalInt(1, 100_000).default(1), page_size: decimalInt(1, 100).default(20), kind: z.enum(TASK_KINDS).optional() });

const detail = z.object({ detail: z.string() });
const errors = {
  401: { description: 'Missing or unknown user token', schema: detail },
  403: { description: "Disabled account, or someone else's app", schema: detail },
  404: { description: 'No such app visible to you', schema: detail },
  422: { description: 'A field failed validation' },
};

const actor = (res: Response) => userOf(res).actor;

/** `/v1/apps`: apps of the caller's account (all apps for an admin), with the account's user token. */
export function appRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const tags = ['Apps'];
  const before = [requireUser(deps)];
  const tasks = deps.upstreams.tasks;
  const common = { tags, security: 'userToken' as const, before };

  deps.book.add(
    router,
    { ...common, method: 'post', path: '/v1/apps', summary: 'Create an app owned by your account', body: createBody, responses: { 200: { description: 'Created', schema: appSchema }, 409: { description: 'app_id taken', schema: detail }, ...errors } },
    async ({ body }, _req, res) => {
      const app = await tasks.createApp({
        actor: actor(res),
        app: { appId: body.app_id, kind: body.kind, name: body.name, ownerAccountId: 0, provider: body.provider, model: body.model, systemPrompt: body.system_prompt, settings: body.settings, public: body.public, createdAt: '', updatedAt: '', baseUrl: body.base_url, apiKey: body.api_key, hasApiKey: false, timeoutMs: body.timeout_ms, reporterToken: '' },
      }, rpcFor(res));
      res.json(appJson(app));
    },
  );
  deps.book.add(
    router,
    { ...common, method: 'get', path: '/v1/apps', summary: 'Apps you may run: your own and the public ones', query: listQuery, responses: { 200: { description: 'One page', schema: z.object({ items: z.array(appSchema), page: z.number().int(), page_size: z.number().int(), total: z.number().int() }) }, ...errors } },
    async ({ query }, _req, res) => {
      const out = await tasks.listApps({ actor: actor(res), page: { page: query.page, pageSize: query.page_size }, kind: query.kind ?? '' }, rpcFor(res));
      res.json({ items: out.items.map(appJson), page: out.page?.page ?? query.page, page_size: out.page?.pageSize ?? query.page_size, total: out.page?.total ?? 0 });
    },
  );
  deps.book.add(
    router,
    { ...common, method: 'get', path: '/v1/apps/:app_id', summary: 'One app', params: appPath, responses: { 200: { description: 'The app', schema: appSchema }, ...errors } },
    async ({ params }, _req, res) => res.json(appJson(await tasks.getApp({ actor: actor(res), appId: params.app_id }, rpcFor(res)))),
  );
  deps.book.add(
    router,
    { ...common, method: 'patch', path: '/v1/apps/:app_id', summary: 'Change the fields sent; app_id, kind and owner never change', params: appPath, body: patchBody, responses: { 200: { description: 'Updated', schema: appSchema }, ...errors } },
    async ({ params, body }, _req, res) => {
      const patch = { name: body.name, provider: body.provider, model: body.model, systemPrompt: body.system_prompt, settings: body.settings, public: body.public, baseUrl: body.base_url, apiKey: body.api_key, timeoutMs: body.timeout_ms };
      res.json(appJson(await tasks.updateApp({ actor: actor(res), appId: params.app_id, patch }, rpcFor(res))));
    },
  );
  deps.book.add(
    router,
    { ...common, method: 'delete', path: '/v1/apps/:app_id', summary: 'Delete an app; its past tasks stay queryable', params: appPath, responses: { 200: { description: 'Deleted', schema: z.object({ detail: z.string(), data: appSchema }) }, ...errors } },
    async ({ params }, _req, res) => res.json({ detail: 'app deleted', data: appJson(await tasks.deleteApp({ actor: actor(res), appId: params.app_id }, rpcFor(res))) }),
  );
  deps.book.add(
    router,
    { ...common, method: 'post', path: '/v1/apps/:app_id/reporter-token', summary: 'A new reporter token for an externally-run app (the old one stops working)', params: appPath, responses: { 200: { description: 'The app with its new reporter_token', schema: appSchema }, 409: { description: 'Not an external app', schema: detail }, ...errors } },
    async ({ params }, _req, res) => res.json(appJson(await tasks.rotateReporterToken({ actor: actor(res), appId: params.app_id }, rpcFor(res)))),
  );
  return router;
}
