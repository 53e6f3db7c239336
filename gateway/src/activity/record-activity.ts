import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ACTIVITY_SUBJECT, type ActivityEvent } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import type { UserPrincipal } from '../auth/user-token';

export interface ActivityFacts {
  /** e.g. document.created, key.updated, config.updated, user.created; later user.signed_in, token.rotated, webhook.created */
  type: string;
  target_type: string;
  target_id: string | number;
  /** One human line; never a secret (no token, no key, no password). */
  summary: string;
  /** The account that acted; defaults to the authenticated caller. */
  user_id?: number;
}

/**
 * Records what the caller did in the activity log: publishes `activity.recorded` on the bus (the
 * docs service stores it), after the change succeeded, without waiting for the bus in the response
 * path. The one call every route uses: `recordActivity(deps, req, res, {type, target_type, target_id, summary})`.
 */
export function recordActivity(deps: GatewayDeps, req: Request, res: Response, facts: ActivityFacts): void {
  const user = res.locals.user as UserPrincipal | undefined;
  const event: ActivityEvent = {
    id: randomUUID(),
    user_id: facts.user_id ?? user?.account.id ?? 0,
    type: facts.type,
    target_type: facts.target_type,
    target_id: String(facts.target_id),
    at: new Date().toISOString(),
    ip: req.ip ?? '',
    user_agent: (req.header('user-agent') ?? '').slice(0, 512),
    summary: facts.summary.slice(0, 500),
  };
  deps.bus.publish(ACTIVITY_SUBJECT, event, { msgId: event.id }).catch((err: unknown) => deps.log.warn({ err, type: event.type }, 'activity not recorded: the bus refused it'));
}
