import { Router, type Response } from 'express';
import { recordActivity } from '../activity/record-activity';
import { z } from 'zod';
import '../http/route-book';
import { decimalInt, plainDecimal } from '../http/form-numbers';
import type { ApiKey } from '@tollgate/protos/keys';
import type { GatewayDeps } from '../deps';
import { requireFormToken, userOf } from '../auth/user-token';
import { fromMicros, toMicros } from '../auth/decimal';
import { usedQuotaOf } from '../auth/usage';
import { rpcFor } from '../http/request-id';

/** Paging of POST /apikeys/list (documented in docs/keys.md). */
export const KEY_LIST_DEFAULT_PAGE_SIZE = 20;
export const KEY_LIST_MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000;

const STATUS = ['启用', '禁用'] as const;
const token = z.string().min(1).max(512).optional().openapi({ description: "The user's token (at most 512 characters); may be left out when the console's session cookie (with X-CSRF-Token) authenticates instead" });
const amount = (description: string) => plainDecimal(description);
const time14 = (description: string) => z.string().regex(/^(\d{14})?$/, 'must be 14 digits YYYYMMDDhhmmss (UTC)').openapi({ description, example: '20271231235959' });
const id = (description: string) => decimalInt(1, 2_147_483_647).openapi({ description });
/** Upper bound of a key's own rpm_limit / concurrency_limit (documented in docs/keys.md). */
export const KEY_LIMIT_MAX = 1_000_000;
const limit = (description: string) =>
  z.union([z.literal(''), decimalInt(0, KEY_LIMIT_MAX)]).openapi({ type: 'integer', description: `${description}, whole number 0–${KEY_LIMIT_MAX.toLocaleString('en-US')}; 0 or empty = the account level's default` });
const rpmLimit = limit("This key's own requests-per-minute limit");
const concurrencyLimit = limit("This key's own limit on executions in flight");
const adminAccount = id('Admin only: the account whose keys to manage (default: your own)').optional();

const createBody = z.object({
  token,
  name: z.string().trim().min(1).max(100).openapi({ description: 'Descriptive name (required)' }),
  channel: z.string().max(200).optional().openapi({ description: 'platform (default), provider:<name>, or custom:<kind>[,<kind>...]' }),
  group: z.string().max(64).optional().openapi({ description: 'Group label (default "default")' }),
  quota: amount('Total usable amount, ≥ 0, up to 6 decimals, digits and one optional point; omitted = unlimited (an empty or blank value is a 422)').optional(),
  expired_time: time14('Expiry, in the future; omitted or empty = never').optional(),
  comments: z.string().max(1000).optional(),
  rpm_limit: rpmLimit.optional(),
  concurrency_limit: concurrencyLimit.optional(),
  account_id: adminAccount,
})
  // A misspelt `quata` would otherwise make an unlimited key.
  .strict();

const listBody = z.object({
  token,
  page: decimalInt(1, MAX_PAGE).optional().openapi({ description: 'Page number from 1 (default 1)' }),
  page_size: decimalInt(1, KEY_LIST_MAX_PAGE_SIZE)
    .optional()
    .openapi({ type: 'integer', description: `Items per page, 1–${KEY_LIST_MAX_PAGE_SIZE} (default ${KEY_LIST_DEFAULT_PAGE_SIZE})` }),
  channel: z.string().max(200).optional().openapi({ description: 'Filter: an exact channel, or a family: platform, provider, custom' }),
  status: z.enum(STATUS).or(z.literal('')).optional().openapi({ description: 'Filter by status' }),
  account_id: adminAccount,
}).strict();

const updateBody = z.object({
  token,
  api_key_id: id('The key to change'),
  name: z.string().max(100).optional(),
  quota: z.union([z.literal(''), amount('')]).optional().openapi({ description: 'New quota (≥ used_quota), digits and one optional point; empty = unlimited (blank is a 422)' }),
  status: z.enum(STATUS).optional(),
  expired_time: time14('New expiry; empty = never; a past time expires the key now').optional(),
  comments: z.string().max(1000).optional(),
  group: z.string().max(64).optional(),
  rpm_limit: rpmLimit.optional(),
  concurrency_limit: concurrencyLimit.optional(),
})
  // A misspelt field would otherwise change nothing and answer 200.
  .strict();

const deleteBody = z.object({ token, api_key_id: id('The key to delete') }).strict();

const keySchema = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  name: z.string(),
  key: z.string().openapi({ description: 'The whole key on creation only; afterwards its display prefix' }),
  channel: z.string(),
  allowed_kinds: z.array(z.string()),
  group: z.string(),
  quota: z.number().nullable().openapi({ description: 'null = unlimited' }),
  used_quota: z.number(),
  remaining_quota: z.number().nullable(),
  created_time: z.string(),
  expired_time: z.string().nullable().openapi({ description: 'null = never' }),
  status: z.string(),
  comments: z.string(),
  rpm_limit: z.number().int().nullable().openapi({ description: "This key's own requests-per-minute limit; null = the account level's default" }),
  concurrency_limit: z.number().int().nullable().openapi({ description: "This key's own limit on executions in flight; null = the account level's default" }),
});
const envelope = (data: z.ZodType) => z.object({ detail: z.string(), data });
const errors = { 401: { description: 'Missing or unknown token' }, 403: { description: 'Account disabled, or not allowed' }, 422: { description: 'Invalid field' } };

const text = (v: string | number | undefined) => (v === undefined ? undefined : String(v).trim());
const limitValue = (v: number | '' | undefined) => (v === '' ? 0 : v);

function keyJson(k: ApiKey, used = '0') {
  const quota = k.quota === '' ? null : k.quota;
  return {
    id: k.id,
    account_id: k.accountId,
    name: k.name,
    key: k.key,
    channel: k.channel,
    allowed_kinds: k.allowedKinds,
    group: k.group,
    quota: quota === null ? null : Number(quota),
    used_quota: Number(fromMicros(toMicros(used))),
    remaining_quota: quota === null ? null : Number(fromMicros(toMicros(quota) - toMicros(used))),
    created_time: k.createdTime,
    expired_time: k.expiredTime || null,
    status: k.status,
    comments: k.comments,
    rpm_limit: k.rpmLimit > 0 ? k.rpmLimit : null,
    concurrency_limit: k.concurrencyLimit > 0 ? k.concurrencyLimit : null,
  };
}

const send = (res: Response, detail: string, data: unknown) => res.status(200).json({ detail, data });

/** POST /apikeys/create|list|update|delete (also under /v1/apikeys/*), form-encoded, authenticated by the `token` field. */
export function apiKeyRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { keys } = deps.upstreams;
  const common = { method: 'post' as const, tags: ['API keys'], security: 'formToken' as const, bodyContentType: 'application/x-www-form-urlencoded' as const, before: [requireFormToken(deps)] };

  deps.book.add(
    router,
    { ...common, path: '/apikeys/create', summary: 'Create an API key (the whole key is shown only in this response)', body: createBody, responses: { 200: { description: 'Created', schema: envelope(keySchema) }, ...errors } },
    async ({ body }, req, res) => {
      const { key } = await keys.createKey({
        actor: userOf(res).actor,
        name: body.name,
        channel: body.channel ?? '',
        group: body.group?.trim() ?? '',
        quota: text(body.quota),
        expiredTime: body.expired_time || undefined,
        comments: body.comments ?? '',
        rpmLimit: limitValue(body.rpm_limit),
        concurrencyLimit: limitValue(body.concurrency_limit),
        allowedKinds: [],
        accountId: body.account_id ?? 0,
      }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'key.created', target_type: 'key', target_id: key!.id, summary: `created API key ${key!.id} "${key!.name}"` });
      send(res, 'API key created; store the key now, it is not shown again', keyJson(key!));
    },
  );

  deps.book.add(
    router,
    {
      ...common,
      path: '/apikeys/list',
      summary: "List the caller's API keys (admin: any account's, with account_id)",
      body: listBody,
      responses: { 200: { description: 'One page', schema: envelope(z.object({ total: z.number().int(), page: z.number().int(), page_size: z.number().int(), items: z.array(keySchema) })) }, ...errors },
    },
    async ({ body }, _req, res) => {
      const page = body.page ?? 1;
      const pageSize = body.page_size ?? KEY_LIST_DEFAULT_PAGE_SIZE;
      const out = await keys.listKeys({ actor: userOf(res).actor, page: { page, pageSize }, channel: body.channel?.trim() ?? '', status: body.status ?? '', accountId: body.account_id ?? 0 }, rpcFor(res));
      const used = await usedQuotaOf(deps, out.items.map((k) => k.id));
      send(res, 'ok', { total: out.page?.total ?? 0, page, page_size: pageSize, items: out.items.map((k) => keyJson(k, used.get(k.id))) });
    },
  );

  deps.book.add(
    router,
    { ...common, path: '/apikeys/update', summary: 'Change name, quota, status, expired_time, comments, group, rpm_limit or concurrency_limit of a key', body: updateBody, responses: { 200: { description: 'Updated', schema: envelope(keySchema) }, 404: { description: 'No such key of yours' }, ...errors } },
    async ({ body }, req, res) => {
      const quota = text(body.quota);
      const key = await keys.updateKey({
        actor: userOf(res).actor,
        apiKeyId: body.api_key_id,
        name: body.name,
        quota,
        status: body.status,
        expiredTime: body.expired_time,
        comments: body.comments,
        group: body.group,
        rpmLimit: limitValue(body.rpm_limit),
        concurrencyLimit: limitValue(body.concurrency_limit),
      }, rpcFor(res));
      const used = (await usedQuotaOf(deps, [key.id])).get(key.id);
      deps.keyCache?.invalidate('key', key.id);
      const changed = Object.keys(body).filter((f) => f !== 'token' && f !== 'api_key_id');
      recordActivity(deps, req, res, { type: 'key.updated', target_type: 'key', target_id: key.id, summary: `updated API key ${key.id} "${key.name}" (${changed.join(', ') || 'no fields'})` });
      send(res, 'API key updated', keyJson(key, used));
    },
  );

  deps.book.add(
    router,
    { ...common, path: '/apikeys/delete', summary: 'Delete a key; it stops working at once', body: deleteBody, responses: { 200: { description: 'Deleted', schema: envelope(keySchema) }, 404: { description: 'No such key of yours' }, ...errors } },
    async ({ body }, req, res) => {
      const key = await keys.deleteKey({ actor: userOf(res).actor, apiKeyId: body.api_key_id }, rpcFor(res));
      deps.keyCache?.invalidate('key', key.id);
      recordActivity(deps, req, res, { type: 'key.deleted', target_type: 'key', target_id: key.id, summary: `deleted API key ${key.id} "${key.name}"` });
      send(res, 'API key deleted', keyJson(key));
    },
  );
  return router;
}
