import type { Request, RequestHandler, Response } from 'express';
import { AppError, type CallSettings } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import type { Account } from '@tollgate/protos/keys';
import type { GatewayDeps } from '../deps';
import { rpcFor } from '../http/request-id';
import { takeBodyError } from '../http/deferred-body';
import { bearerCredential } from './bearer';
import { sha256Hex } from './secrets';
import { checkCsrf, sessionCookie } from './session';

/** A caller authenticated by their user token (docs API Bearer, or the key-management `token` field). */
export interface UserPrincipal {
  actor: Actor;
  account: Account;
}

export type UserPermission = 'docs_read' | 'docs_write' | 'admin';

/** Longest user token the gateway passes on (issued tokens are far shorter); longer ones are unknown tokens, refused here. */
export const MAX_USER_TOKEN_CHARS = 512;

async function authenticateUser(deps: GatewayDeps, token: string, call: CallSettings): Promise<UserPrincipal> {
  if (token.length > MAX_USER_TOKEN_CHARS) throw AppError.unauthenticated(`invalid token: longer than ${MAX_USER_TOKEN_CHARS} characters`);
  const ask = () => deps.upstreams.keys.authenticateUser({ token }, call);
  const account = await (deps.accountCache ? deps.accountCache.through(sha256Hex(token), ask) : ask());
  return { actor: { accountId: account.id, isAdmin: account.permissions?.admin === true, apiKeyId: 0 }, account };
}

/**
 * The console's alternative to the user token: with no Authorization header (and no `token` form
 * field), the session cookie authenticates; a state-changing call must also carry X-CSRF-Token.
 */
async function authenticateSession(deps: GatewayDeps, req: Request, sessionToken: string, call: CallSettings): Promise<UserPrincipal> {
  const account = await deps.upstreams.keys.authenticateSession({ sessionToken }, call);
  checkCsrf(req, sessionToken);
  return { actor: { accountId: account.id, isAdmin: account.permissions?.admin === true, apiKeyId: 0 }, account };
}

/** Whether the account holds the permission; admin implies every permission. */
export function hasPermission(account: Account, permission: UserPermission): boolean {
  const p = account.permissions;
  if (!p) return false;
  if (p.admin) return true;
  return permission === 'docs_read' ? p.docsRead : permission === 'docs_write' ? p.docsWrite : false;
}

/** What an account past its `valid_until` may still do with its token: read (docs/keys.md). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const READS_BY_POST = new Set(['/api/v1/search/advanced']);

function checkValidity(user: UserPrincipal, req: Request): void {
  const until = user.account.validUntil;
  if (!until || Date.parse(until) > Date.now()) return;
  if (READ_METHODS.has(req.method) || READS_BY_POST.has(req.baseUrl + req.path)) return;
  throw AppError.forbidden(`account has expired (valid_until ${until}): it may only read`);
}

function checkPermission(user: UserPrincipal, permission: UserPermission | undefined): void {
  if (permission && !hasPermission(user.account, permission)) throw AppError.forbidden(`this operation needs the ${permission} permission`);
}

/**
 * Docs API: authenticates `Authorization: Bearer <API_TOKEN>` (the account's user token) unless an
 * earlier requireUser already did, then checks `permission`. Sets `res.locals.user` (userOf).
 * Missing/unknown token → 401; 禁用 account → 403; an account past its valid_until writing → 403;
 * missing permission → 403.
 */
export function requireUser(deps: GatewayDeps, opts: { permission?: UserPermission } = {}): RequestHandler {
  return async (req, res, next) => {
    let user = res.locals.user as UserPrincipal | undefined;
    if (!user) {
      const session = req.headers.authorization ? undefined : sessionCookie(req);
      user = session ? await authenticateSession(deps, req, session, rpcFor(res)) : await authenticateUser(deps, bearerCredential(req, 'API_TOKEN'), rpcFor(res));
      res.locals.user = user;
    }
    checkValidity(user, req);
    checkPermission(user, opts.permission);
    next();
  };
}

/** Key management: authenticates the form field `token` (the user token). Sets `res.locals.user`. */
export function requireFormToken(deps: GatewayDeps): RequestHandler {
  return async (req, res, next) => {
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    const session = token === undefined ? sessionCookie(req) : undefined;
    if (session) {
      res.locals.user = await authenticateSession(deps, req, session, rpcFor(res));
      return next();
    }
    // The token was to come from a body that could not be read: say what is wrong with the body.
    if (token === undefined) takeBodyError(res);
    if (typeof token !== 'string' || token === '') throw AppError.unauthenticated('missing token: send the user token in the form field "token"');
    if (token.length > MAX_USER_TOKEN_CHARS) throw AppError.field(['body', 'token'], `token must be at most ${MAX_USER_TOKEN_CHARS} characters`, 'too_big');
    res.locals.user = await authenticateUser(deps, token, rpcFor(res));
    next();
  };
}

/** The caller set by requireUser / requireFormToken; throws if the route was not behind either. */
export function userOf(res: Response): UserPrincipal {
  const user = res.locals.user as UserPrincipal | undefined;
  if (!user) throw new Error('userOf: the route is not behind requireUser or requireFormToken');
  return user;
}
