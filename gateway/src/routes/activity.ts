import { Router } from 'express';
import { z } from 'zod';
import type { ActivityItem, ListActivityResponse } from '@tollgate/protos/site';
import '../http/route-book';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { envelope } from './documents-schemas';
import { rpcFor } from '../http/request-id';
import { instantText } from '../http/instants';
import { decimalInt } from '../http/form-numbers';
import { instantMs } from '@tollgate/kit';

const instant = instantText;
const int = decimalInt;

const filters = {
  type: z.string().regex(/^[a-z]+(?:\.[a-z_]+)+$/, 'an activity type such as document.created').optional(),
  from: instant.optional().openapi({ description: 'Inclusive (a date means its 00:00 UTC)' }),
  to: instant.optional().openapi({ description: 'Exclusive' }),
  page: int(1, 100_000).optional(),
  limit: int(1, 100).optional().openapi({ description: 'Default 20' }),
};
/** `from` after `to` names no time at all: a 422, not an empty page. */
const ordered = <Q extends { from?: string; to?: string }>(q: Q, ctx: z.RefinementCtx) => {
  if (q.from !== undefined && q.to !== undefined && instantMs(q.from)! > instantMs(q.to)!) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
};
const userQuery = z.object(filters).superRefine(ordered);
const listQuery = z.object({ ...filters, user_id: int(1, 2_147_483_647).optional().openapi({ description: "Admins: one account's activity (default: everyone's). Others: their own id only" }) }).superRefine(ordered);

export const activityItemSchema = z.object({
  id: z.string(),
  user_id: z.number().int(),
  type: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  at: z.string(),
  ip: z.string(),
  user_agent: z.string(),
  summary: z.string(),
});
const pageSchema = envelope(z.object({ items: z.array(activityItemSchema), page: z.number().int(), limit: z.number().int(), total: z.number().int(), total_pages: z.number().int() }));

const itemJson = (i: ActivityItem) => ({ id: i.id, user_id: i.userId, type: i.type, target_type: i.targetType, target_id: i.targetId, at: i.at, ip: i.ip, user_agent: i.userAgent, summary: i.summary });
const pageJson = (out: ListActivityResponse) => {
  const limit = out.page?.pageSize ?? 20;
  const total = out.page?.total ?? 0;
  return { items: out.items.map(itemJson), page: out.page?.page ?? 1, limit, total, total_pages: Math.ceil(total / limit) };
};

const errors = { 401: { description: 'Missing or unknown token' }, 403: { description: "Plain HTTP, or another account's activity without admin" }, 422: { description: 'Invalid filter; data.errors lists the fields' } };

/**
 * `/api/v1/activity` and `/api/v1/users/<id>/activity`: what accounts did, newest first, from the
 * docs service's activity log (recorded through `recordActivity`). Own activity for everyone; an
 * admin reads anyone's. Decisions in docs/docs-api.md.
 */
export function activityRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { site } = deps.upstreams;
  const before = [requireUser(deps)];
  const tags = ['Activity'];

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/activity', summary: "Activity: your own; an admin's covers everyone (or user_id)", tags, security: 'userToken', query: listQuery, before, responses: { 200: { description: 'One page, newest first', schema: pageSchema }, ...errors } },
    async ({ query }, _req, res) => {
      const { actor } = userOf(res);
      const out = await site.listActivity({ actor, userId: query.user_id ?? 0, allUsers: actor.isAdmin && query.user_id === undefined, type: query.type ?? '', from: query.from ?? '', to: query.to ?? '', page: { page: query.page ?? 1, pageSize: query.limit ?? 20 } }, rpcFor(res));
      sendEnvelope(res, pageJson(out));
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/users/:id/activity', summary: "One account's activity (admin, or yourself)", tags, security: 'userToken', params: z.object({ id: int(1, 2_147_483_647) }), query: userQuery, before, responses: { 200: { description: 'One page, newest first', schema: pageSchema }, ...errors } },
    async ({ params, query }, _req, res) => {
      const out = await site.listActivity({ actor: userOf(res).actor, userId: params.id, allUsers: false, type: query.type ?? '', from: query.from ?? '', to: query.to ?? '', page: { page: query.page ?? 1, pageSize: query.limit ?? 20 } }, rpcFor(res));
      sendEnvelope(res, pageJson(out));
    },
  );
  return router;
}
