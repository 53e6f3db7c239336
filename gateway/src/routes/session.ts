import express, { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import '../http/route-book';
import { AppError, isAppError } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { recordActivity } from '../activity/record-activity';
import { deferBodyErrors } from '../http/deferred-body';
import { httpsOnly } from '../http/https-only';
import { setSurface } from '../http/surface';
import { sendEnvelope } from '../http/envelope';
import { checkCsrf, clearSessionCookie, csrfTokenOf, sessionCookie, setSessionCookie } from '../auth/session';
import { SignInLimiter } from '../limits/sign-in-limit';
import { docsRateLimit, docsRateLimitForRefused } from '../limits/docs-rate-limit';
import { envelope, userJson, userSchema } from './users';
import { rpcFor } from '../http/request-id';
import { passOn, wrongMethod } from '../http/unknown-route';
import { optionsRoute } from '../http/options';
import { jsonBodyOnly } from '../http/json-body-only';

const signInBody = z
  .object({
    email: z.string().max(320).optional(),
    password: z.string().max(256).optional(),
    token: z.string().max(256).optional().openapi({ description: 'The user token, instead of email + password' }),
  })
  .strict()
  .refine((b) => (b.token !== undefined && b.token !== '') !== (b.email !== undefined || b.password !== undefined), { message: 'send either email and password, or token' })
  .refine((b) => b.token !== undefined || (!!b.email && !!b.password), { message: 'email and password are both required' });

const sessionSchema = z.object({
  user: userSchema,
  csrf_token: z.string().openapi({ description: 'Send it as X-CSRF-Token on every state-changing call made with the session cookie' }),
  expires_at: z.string().optional().openapi({ description: 'ISO 8601 end of the session (at sign-in)' }),
});
const tags = ['Console session'];

/**
 * The console's sign-in: `/api/v1/session` (HTTPS, docs envelope). Mounted before the docs API's
 * surface because signing in is the one docs-API call made without a credential.
 */
export function sessionRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const limiter = (deps.signInLimiter ??= new SignInLimiter());
  const surface: RequestHandler = (_req, res, next) => {
    setSurface(res, 'docs');
    next();
  };
  const json = deferBodyErrors(express.json({ limit: 16 * 1024, strict: true }));
  // Counted per client address at the free tier (a session call is made before, or without, a user token), with the headers every docs answer carries.
  router.use('/api/v1/session', surface, httpsOnly, wrongMethod(deps.book, () => passOn), jsonBodyOnly, docsRateLimit(deps));
  const { keys } = deps.upstreams;
  // OPTIONS in the envelope, as on every docs-API path, not Express's plain-text answer.
  router.use('/api/v1/session', optionsRoute(deps.book, () => '/api/v1/session'));

  deps.book.add(
    router,
    {
      method: 'post',
      path: '/api/v1/session',
      summary: 'Sign in to the console with email + password or with the user token: sets the session cookie',
      description: 'Sets `tollgate_session` (httpOnly, Secure, SameSite=Strict). Failed attempts are limited per account and per client address (429 with Retry-After). See docs/console.md.',
      tags,
      security: 'none',
      body: signInBody,
      before: [json],
      responses: { 201: { description: 'Signed in', schema: envelope(sessionSchema) }, 401: { description: 'Wrong email, password or user token' }, 403: { description: 'Account disabled or expired' }, 422: { description: 'Invalid body' }, 429: { description: 'Too many failed attempts; Retry-After says when to try again' } },
    },
    async ({ body }, req, res) => {
      const account = body.token ? `t:${body.token.slice(0, 7)}` : `e:${(body.email ?? '').trim().toLowerCase()}`;
      const address = req.ip ?? 'unknown';
      const attempt = limiter.begin(account, address);
      try {
        const out = await keys.signIn({ email: body.email ?? '', password: body.password ?? '', token: body.token ?? '' }, rpcFor(res));
        attempt.succeeded();
        setSessionCookie(res, out.sessionToken, new Date(out.expiresAt));
        recordActivity(deps, req, res, { type: 'user.signed_in', target_type: 'user', target_id: out.account!.id, user_id: out.account!.id, summary: `signed in to the console with ${body.token ? 'the user token' : 'email and password'}` });
        sendEnvelope(res, { user: userJson(out.account!), csrf_token: csrfTokenOf(out.sessionToken), expires_at: out.expiresAt }, { status: 201, message: 'signed in' });
      } catch (err) {
        if (isAppError(err) && err.code === 'UNAUTHENTICATED') attempt.failed();
        else attempt.undecided();
        throw err;
      }
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/session', summary: 'The signed-in user and the CSRF token of the session cookie', tags, security: 'none', responses: { 200: { description: 'The session', schema: envelope(sessionSchema) }, 401: { description: 'No valid session' } } },
    async (_input, req, res) => {
      const token = sessionCookie(req);
      if (!token) throw AppError.unauthenticated('not signed in');
      const account = await keys.authenticateSession({ sessionToken: token }, rpcFor(res));
      sendEnvelope(res, { user: userJson(account), csrf_token: csrfTokenOf(token) });
    },
  );

  deps.book.add(
    router,
    { method: 'delete', path: '/api/v1/session', summary: 'Sign out: ends the session on the server and clears the cookie', tags, security: 'none', responses: { 200: { description: 'Signed out' }, 403: { description: 'Missing or wrong X-CSRF-Token' } } },
    async (_input, req, res) => {
      const token = sessionCookie(req);
      if (token) {
        checkCsrf(req, token);
        const account = await keys.authenticateSession({ sessionToken: token }, rpcFor(res)).catch(() => undefined);
        await keys.signOut({ sessionToken: token }, rpcFor(res));
        if (account) recordActivity(deps, req, res, { type: 'user.signed_out', target_type: 'user', target_id: account.id, user_id: account.id, summary: 'signed out of the console' });
      }
      clearSessionCookie(res);
      sendEnvelope(res, { signed_out: true }, { message: 'signed out' });
    },
  );
  // Refused session calls carry the docs API's rate-limit headers too (counted per address), like every /api error.
  router.use('/api/v1/session', docsRateLimitForRefused(deps));
  return router;
}
