import { forgetAccount } from '../auth/key-cache';
import { Router } from 'express';
import { z } from 'zod';
import '../http/route-book';
import { TASK_KINDS } from '@tollgate/kit';
import type { Account, Permissions } from '@tollgate/protos/keys';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { recordActivity } from '../activity/record-activity';
import { decimalInt } from '../http/form-numbers';
import { rpcFor } from '../http/request-id';
import { instantText } from '../http/instants';

/** Paging of GET /api/v1/users (documented in docs/keys.md). */
export const USER_LIST_DEFAULT_LIMIT = 20;
export const USER_LIST_MAX_LIMIT = 100;

const LEVELS = ['free', 'pro', 'enterprise'] as const;
const STATUS = ['启用', '禁用'] as const;

const permissionsSchema = z
  .object({
    kinds: z.array(z.enum(TASK_KINDS)).optional().openapi({ description: 'Task kinds the user may run (default: all four)' }),
    docs_read: z.boolean().optional(),
    docs_write: z.boolean().optional(),
    admin: z.boolean().optional(),
  })
  .strict();
const validUntil = instantText.nullable().optional().openapi({ description: 'ISO 8601 end of validity (a date means its 00:00 UTC), 1970–9999; null = none' });

const createBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    email: z.string().trim().min(3).max(320),
    level: z.enum(LEVELS).optional().openapi({ description: 'Default free' }),
    permissions: permissionsSchema.optional().openapi({ description: 'Default: all four kinds, docs read and write, not admin' }),
    valid_until: validUntil,
    password: z.string().min(8).max(256).optional().openapi({ description: 'Console password (argon2id-hashed); without one the user signs in to the console with the user token' }),
  })
  .strict();

const updateBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    email: z.string().trim().min(3).max(320).optional(),
    level: z.enum(LEVELS).optional().openapi({ description: 'Admin only' }),
    status: z.enum(STATUS).optional().openapi({ description: 'Admin only' }),
    permissions: permissionsSchema.optional().openapi({ description: 'Admin only; fields given replace the current ones' }),
    valid_until: validUntil.openapi({ description: 'Admin only' }),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update: send at least one field' });

const idParams = z.object({ id: decimalInt(1, 2_147_483_647) });
const listQuery = z.object({
  page: decimalInt(1, 100_000).optional().openapi({ description: 'Default 1' }),
  limit: decimalInt(1, USER_LIST_MAX_LIMIT).optional().openapi({ description: `Default ${USER_LIST_DEFAULT_LIMIT}, at most ${USER_LIST_MAX_LIMIT}` }),
  status: z.enum(STATUS).optional(),
  level: z.enum(LEVELS).optional(),
});

export const userSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string().nullable(),
  level: z.enum(LEVELS),
  status: z.string(),
  permissions: z.object({ kinds: z.array(z.string()), docs_read: z.boolean(), docs_write: z.boolean(), admin: z.boolean() }),
  valid_until: z.string().nullable(),
  created_at: z.string(),
  last_active_at: z.string().nullable(),
  has_password: z.boolean().openapi({ description: 'Whether the user has a console password' }),
});
export const envelope = (data: z.ZodType) => z.object({ code: z.number().int(), message: z.string(), data, timestamp: z.string() });

export function userJson(a: Account) {
  const p = a.permissions;
  return {
    id: a.id,
    name: a.name,
    email: a.email || null,
    level: a.level,
    status: a.status,
    permissions: { kinds: p?.kinds ?? [], docs_read: p?.docsRead ?? false, docs_write: p?.docsWrite ?? false, admin: p?.admin ?? false },
    valid_until: a.validUntil || null,
    created_at: a.createdAt,
    last_active_at: a.lastActiveAt || null,
    has_password: a.hasPassword,
  };
}

type PermissionsInput = z.infer<typeof permissionsSchema>;

function mergePermissions(base: Permissions, input: PermissionsInput): Permissions {
  return {
    kinds: input.kinds ?? base.kinds,
    docsRead: input.docs_read ?? base.docsRead,
    docsWrite: input.docs_write ?? base.docsWrite,
    admin: input.admin ?? base.admin,
  };
}

const DEFAULT_PERMISSIONS: Permissions = { kinds: [...TASK_KINDS], docsRead: true, docsWrite: true, admin: false };
const errors = { 401: { description: 'Missing or unknown token' }, 403: { description: 'Not allowed' }, 422: { description: 'Invalid field' } };

/**
 * `/api/v1/users` in the docs envelope (authentication by requireUser in the API surface).
 * Admin: everything. A user: GET and PUT of their own profile (name, email), and GET /users/me.
 */
export function usersRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { keys } = deps.upstreams;
  const admin = [requireUser(deps, { permission: 'admin' })];
  const anyUser = [requireUser(deps)];
  const tags = ['Users'];

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/users', summary: 'List users (admin)', tags, security: 'admin', query: listQuery, before: admin, responses: { 200: { description: 'One page', schema: envelope(z.object({ users: z.array(userSchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() })) }, ...errors } },
    async ({ query }, _req, res) => {
      const page = query.page ?? 1;
      const limit = query.limit ?? USER_LIST_DEFAULT_LIMIT;
      const out = await keys.listAccounts({ actor: userOf(res).actor, page: { page, pageSize: limit }, status: query.status ?? '', level: query.level ?? '' }, rpcFor(res));
      sendEnvelope(res, { users: out.items.map(userJson), total: out.page?.total ?? 0, page, limit });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/users', summary: 'Create a user (admin); the token is returned only here', tags, security: 'admin', body: createBody, before: admin, responses: { 201: { description: 'Created', schema: envelope(userSchema.extend({ token: z.string() })) }, 409: { description: 'Email already used' }, ...errors } },
    async ({ body }, req, res) => {
      const out = await keys.createAccount({
        actor: userOf(res).actor,
        name: body.name,
        email: body.email,
        level: body.level ?? 'free',
        permissions: body.permissions ? mergePermissions(DEFAULT_PERMISSIONS, body.permissions) : undefined,
        validUntil: body.valid_until ?? undefined,
        password: body.password,
      }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'user.created', target_type: 'user', target_id: out.account!.id, summary: `created user ${out.account!.id} (${out.account!.level})` });
      sendEnvelope(res, { ...userJson(out.account!), token: out.token }, { status: 201, message: 'user created; store the token now, it is not shown again' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/users/me', summary: "The caller's own profile", tags, security: 'userToken', before: anyUser, responses: { 200: { description: 'The profile', schema: envelope(userSchema) }, ...errors } },
    async (_input, _req, res) => {
      sendEnvelope(res, userJson(userOf(res).account));
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/users/:id', summary: 'A user (admin, or yourself)', tags, security: 'userToken', params: idParams, before: anyUser, responses: { 200: { description: 'The user', schema: envelope(userSchema) }, 404: { description: 'No such user' }, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, userJson(await keys.getAccount({ actor: userOf(res).actor, accountId: params.id }, rpcFor(res))));
    },
  );

  deps.book.add(
    router,
    { method: 'put', path: '/api/v1/users/:id', summary: 'Update a user (admin: all fields; yourself: name and email)', tags, security: 'userToken', params: idParams, body: updateBody, before: anyUser, responses: { 200: { description: 'Updated', schema: envelope(userSchema) }, 404: { description: 'No such user' }, 409: { description: 'Email already used, or the bootstrap admin would be locked out' }, ...errors } },
    async ({ params, body }, req, res) => {
      const { actor } = userOf(res);
      const permissions = body.permissions && actor.isAdmin ? mergePermissions((await keys.getAccount({ actor, accountId: params.id }, rpcFor(res))).permissions ?? DEFAULT_PERMISSIONS, body.permissions) : body.permissions ? DEFAULT_PERMISSIONS : undefined;
      const account = await keys.updateAccount({
        actor,
        accountId: params.id,
        name: body.name,
        email: body.email,
        level: body.level,
        status: body.status,
        permissions,
        validUntil: body.valid_until === null ? '' : body.valid_until,
      }, rpcFor(res));
      forgetAccount(deps, account.id);
      recordActivity(deps, req, res, { type: 'user.updated', target_type: 'user', target_id: account.id, summary: `updated user ${account.id} (${Object.keys(body).join(', ') || 'no fields'})` });
      sendEnvelope(res, userJson(account), { message: 'user updated' });
    },
  );

  deps.book.add(
    router,
    { method: 'delete', path: '/api/v1/users/:id', summary: "Delete a user (admin); their token and keys stop working at once", tags, security: 'admin', params: idParams, before: admin, responses: { 200: { description: 'Deleted', schema: envelope(userSchema) }, 404: { description: 'No such user' }, 409: { description: 'The bootstrap admin cannot be deleted' }, ...errors } },
    async ({ params }, req, res) => {
      const account = await keys.deleteAccount({ actor: userOf(res).actor, accountId: params.id }, rpcFor(res));
      forgetAccount(deps, account.id);
      recordActivity(deps, req, res, { type: 'user.deleted', target_type: 'user', target_id: account.id, summary: `deleted user ${account.id}` });
      sendEnvelope(res, userJson(account), { message: 'user deleted' });
    },
  );
  return router;
}
