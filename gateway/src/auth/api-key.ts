import type { Request, RequestHandler, Response } from 'express';
import { AppError, type CallSettings } from '@tollgate/kit';
import type { Actor } from '@tollgate/protos/common';
import type { Account, ApiKey, AuthenticateKeyResponse } from '@tollgate/protos/keys';
import type { GatewayDeps } from '../deps';
import { rpcFor } from '../http/request-id';
import { bearerCredential } from './bearer';
import { fromMicros, toMicros } from './decimal';
import { API_KEY_FORMAT, sha256Hex, time14Ms } from './secrets';
import { usedQuotaFloor } from './usage';

/** Who a task request runs as, once its API key passed every check. `key.usedQuota` is set when the key has a quota. */
export interface KeyPrincipal {
  actor: Actor;
  key: ApiKey;
  account: Account;
}

async function verified(deps: GatewayDeps, rawKey: string, kind: string, call: CallSettings | undefined): Promise<AuthenticateKeyResponse> {
  const ask = () => deps.upstreams.keys.authenticateKey({ key: rawKey, kind }, call);
  return deps.keyCache ? deps.keyCache.through(`${sha256Hex(rawKey)}:${kind}`, ask) : ask();
}

/**
 * The spec's authentication order for one API key and one kind (agent|workflow|aiapp|chatbot or
 * "passthrough"): 1 format, 2 existence, 3 status 启用, 4 account valid, 5 account status +
 * permission + channel (keys service, cached), 6 quota not exhausted (billing usage, see
 * UsedQuotaFloor; billing's admission holds it exactly), 7 not expired.
 * Throws the AppError of the first failing check (401 / 403 / 429).
 */
export interface ApiKeyCheckOptions {
  /** Check 6 applies to calls that spend quota; reading or cancelling one's own tasks does not. */
  spendsQuota?: boolean;
  /** The request's gRPC settings (its request id) for the keys service's lookup. */
  call?: CallSettings;
}

/** Checks 1–5 for one kind ('' skips the permission and channel part of 5). */
async function known(deps: GatewayDeps, rawKey: string | undefined, kind: string, call?: CallSettings): Promise<{ key: ApiKey; account: Account }> {
  if (!rawKey || !API_KEY_FORMAT.test(rawKey)) throw AppError.unauthenticated('invalid API key format: expected ak- followed by 32 characters');
  const { key, account } = await verified(deps, rawKey, kind, call);
  if (!key || !account) throw AppError.unauthenticated('invalid API key');
  return { key, account };
}

/**
 * The channel of a key that passes checks 1–5 without a kind: routes shared by several channels
 * (`/v1/chat/completions`) choose their behaviour by it. Its failures are the same for any kind.
 */
export async function keyChannel(deps: GatewayDeps, rawKey: string | undefined, call?: CallSettings): Promise<string> {
  return (await known(deps, rawKey, '', call)).key.channel;
}

export async function authenticateApiKey(deps: GatewayDeps, rawKey: string | undefined, kind: string, options: ApiKeyCheckOptions = {}): Promise<KeyPrincipal> {
  const { key, account } = await known(deps, rawKey, kind, options.call);

  const expired = !!key.expiredTime && time14Ms(key.expiredTime) <= Date.now();
  let usedQuota = '';
  if (key.quota !== '' && options.spendsQuota !== false) {
    const usage = usedQuotaFloor(deps);
    usedQuota = await (expired ? usage.current(key.id) : usage.recent(key.id));
    const remaining = toMicros(key.quota) - toMicros(usedQuota);
    if (remaining <= 0n) {
      throw AppError.exhausted(`insufficient quota: this API key's quota of ${key.quota} is used up (used ${fromMicros(toMicros(usedQuota))})`, {
        limit: 'quota',
        // Only a raised quota helps: a polite re-check interval, like billing's for a used-up quota.
        retryAfterSeconds: 60,
      });
    }
  }
  if (expired) throw AppError.unauthenticated(`API key expired at ${key.expiredTime} (UTC)`);

  return {
    actor: { accountId: account.id, isAdmin: account.permissions?.admin === true, apiKeyId: key.id },
    key: { ...key, usedQuota },
    account,
  };
}

/**
 * Authenticates `Authorization: Bearer <API_KEY>` for the kind `kindOf(req)` and sets
 * `res.locals.principal` (read it with principalOf).
 */
export function requireApiKey(deps: GatewayDeps, kindOf: (req: Request) => string, options: ApiKeyCheckOptions = {}): RequestHandler {
  return async (req, res, next) => {
    const credential = bearerCredential(req, 'API_KEY');
    res.locals.principal = await authenticateApiKey(deps, credential, kindOf(req), { ...options, call: rpcFor(res) });
    next();
  };
}

/** The principal set by requireApiKey; throws if the route was not behind it. */
export function principalOf(res: Response): KeyPrincipal {
  const principal = res.locals.principal as KeyPrincipal | undefined;
  if (!principal) throw new Error('principalOf: the route is not behind requireApiKey');
  return principal;
}
