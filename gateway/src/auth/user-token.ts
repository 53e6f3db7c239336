import type { RequestHandler, Response } from 'express';
import { AppError } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import type { Account } from '@tollgate/protos/keys';
import type { GatewayDeps } from '../deps';
import { bearerCredential } from './bearer';

/** A caller authenticated by their user token (docs API Bearer, or the key-management `token` field). */
export interface UserPrincipal {
  actor: Actor;
  account: Account;
}

export type UserPermission = 'docs_read' | 'docs_write' | 'admin';

async function authenticateUser(deps: GatewayDeps, token: string): Promise<UserPrincipal> {
  const account = await deps.upstreams.keys.authenticateUser({ token });
  return { actor: { accountId: account.id, isAdmin: account.permissions?.admin === true, apiKeyId: 0 }, account };
}

/** Whether the account holds the permission; admin implies every permission. */
export function hasPermission(account: Account, permission: UserPermission): boolean {
  const p = account.permissions;
  if (!p) return false;
  if (p.admin) return true;
  return permission === 'docs_read' ? p.docsRead : permission === 'docs_write' ? p.docsWrite : false;
}

function checkPermission(user: UserPrincipal, permission: UserPermission | undefined): void {
  if (permission && !hasPermission(user.account, permission)) throw AppError.forbidden(`this operation needs the ${permission} permission`);
}

/**
 * Docs API: authenticates `Authorization: Bearer <API_TOKEN>` (the account's user token) unless an
 * earlier requireUser already did, then checks `permission`. Sets `res.locals.user` (userOf).
 * Missing/unknown token → 401; 禁用 account → 403; missing permission → 403.
 */
export function requireUser(deps: GatewayDeps, opts: { permission?: UserPermission } = {}): RequestHandler {
  return async (req, res, next) => {
    let user = res.locals.user as UserPrincipal | undefined;
    if (!user) {
      user = await authenticateUser(deps, bearerCredential(req, 'API_TOKEN'));
      res.locals.user = user;
    }
    checkPermission(user, opts.permission);
    next();
  };
}

/** Key management: authenticates the form field `token` (the user token). Sets `res.locals.user`. */
export function requireFormToken(deps: GatewayDeps): RequestHandler {
  return async (req, res, next) => {
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token === '') throw AppError.unauthenticated('missing token: send the user token in the form field "token"');
    res.locals.user = await authenticateUser(deps, token);
    next();
  };
}

/** The caller set by requireUser / requireFormToken; throws if the route was not behind either. */
export function userOf(res: Response): UserPrincipal {
  const user = res.locals.user as UserPrincipal | undefined;
  if (!user) throw new Error('userOf: the route is not behind requireUser or requireFormToken');
  return user;
}
