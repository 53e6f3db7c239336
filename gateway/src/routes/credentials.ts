import { forgetAccount } from '../auth/key-cache';
import { Router } from 'express';
import { z } from 'zod';
import '../http/route-book';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sessionCookie } from '../auth/session';
import { sendEnvelope } from '../http/envelope';
import { recordActivity } from '../activity/record-activity';
import { envelope, userJson, userSchema } from './users';
import { rpcFor } from '../http/request-id';
import { ErrorCode, isAppError } from '@tollgate/kit';
import { SignInLimiter } from '../limits/sign-in-limit';
import { decimalInt } from '../http/form-numbers';

const idParams = z.object({ id: z.union([z.literal('me'), decimalInt(1, 2_147_483_647)]).openapi({ description: 'A user id, or `me`' }) });
const passwordBody = z
  .object({
    password: z.string().max(256).openapi({ description: '8–256 characters; an empty string removes the password' }),
    current_password: z.string().max(256).optional().openapi({ description: 'Required when you change your own password and one is set (admins excepted)' }),
  })
  .strict();
const errors = { 401: { description: 'Missing or unknown token or session' }, 403: { description: 'Not allowed' }, 404: { description: 'No such user' }, 422: { description: 'Invalid field' } };
const tags = ['Users'];

const wrongCurrentPassword = (err: unknown): boolean => isAppError(err) && err.code === ErrorCode.InvalidArgument && (err.details.issues ?? []).some((i) => i.loc.includes('current_password'));

/** Token rotation and console passwords: yourself (`me`), or anyone as an admin. */
export function credentialRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { keys } = deps.upstreams;
  const before = [requireUser(deps)];
  const target = (id: 'me' | number, accountId: number) => (id === 'me' ? accountId : id);
  const limiter = (deps.signInLimiter ??= new SignInLimiter());

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/users/:id/token', summary: "A new user token, shown once; the old one stops working at once, and so do the user's console sessions but the caller's own (yourself, or anyone as an admin)", tags, security: 'userToken', params: idParams, before, responses: { 200: { description: 'The new token', schema: envelope(userSchema.extend({ token: z.string() })) }, ...errors } },
    async ({ params }, req, res) => {
      const { actor } = userOf(res);
      const out = await keys.rotateToken({ actor, accountId: target(params.id, actor.accountId), keepSessionToken: sessionCookie(req) ?? '' }, rpcFor(res));
      forgetAccount(deps, out.account!.id);
      const whose = out.account!.id === actor.accountId ? 'their own user token' : `the user token of user ${out.account!.id}`;
      recordActivity(deps, req, res, { type: 'token.rotated', target_type: 'user', target_id: out.account!.id, summary: `rotated ${whose}` });
      sendEnvelope(res, { ...userJson(out.account!), token: out.token }, { message: 'token rotated; store it now, it is not shown again' });
    },
  );

  deps.book.add(
    router,
    { method: 'put', path: '/api/v1/users/:id/password', summary: "Set or remove a console password (yourself with current_password, or anyone as an admin); the user's other sessions end", tags, security: 'userToken', params: idParams, body: passwordBody, before, responses: { 200: { description: 'The user', schema: envelope(userSchema) }, ...errors } },
    async ({ params, body }, req, res) => {
      const { actor } = userOf(res);
      const accountId = target(params.id, actor.accountId);
      // A wrong current password counts as a failed sign-in: a stolen session must not find the password by trying.
      const attempt = body.current_password !== undefined ? limiter.begin(`u:${accountId}`, req.ip ?? 'unknown') : undefined;
      const account = await keys.setPassword({ actor, accountId, password: body.password, currentPassword: body.current_password ?? '', keepSessionToken: sessionCookie(req) ?? '' }, rpcFor(res)).catch((err: unknown) => {
        if (wrongCurrentPassword(err)) attempt?.failed();
        else attempt?.undecided();
        throw err;
      });
      attempt?.succeeded();
      recordActivity(deps, req, res, { type: body.password ? 'password.set' : 'password.removed', target_type: 'user', target_id: account.id, summary: `${body.password ? 'set' : 'removed'} the console password of user ${account.id}` });
      sendEnvelope(res, userJson(account), { message: 'password updated' });
    },
  );
  return router;
}
