import { Router } from 'express';
import { z } from 'zod';
import '../http/route-book';
import { TaskStatus } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { rpcFor } from '../http/request-id';
import { decimalInt } from '../http/form-numbers';

const statsQuery = z.object({
  days: decimalInt(1, 366).optional().openapi({ description: 'The last N days (UTC, today included); default 30, at most 366' }),
});
const statsSchema = z.object({
  account_id: z.number().int(),
  from: z.string().openapi({ description: 'ISO 8601, inclusive (start of the first day, UTC)' }),
  to: z.string().openapi({ description: 'ISO 8601, exclusive (start of tomorrow, UTC)' }),
  total: z.number().int().openapi({ description: 'Tasks created in the range' }),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
  in_flight: z.number().int().openapi({ description: 'Still 等待中 or 执行中' }),
  error_rate: z.number().nullable().openapi({ description: 'failed / (completed + failed); null when none finished' }),
});

/**
 * `GET /v1/account/task-stats`: how the account's tasks of the last N days ended, for the user
 * (user token or console session) rather than for one API key: the console's error rate.
 * Always the caller's own account, admins included.
 */
export function taskStatsRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { tasks } = deps.upstreams;
  deps.book.add(
    router,
    {
      method: 'get',
      path: '/v1/account/task-stats',
      summary: "How your account's tasks of the last N days ended (counts by outcome, error rate)",
      tags: ['Tasks'],
      security: 'userToken',
      query: statsQuery,
      before: [requireUser(deps)],
      responses: { 200: { description: 'Counts', schema: statsSchema }, 401: { description: 'Missing or unknown user token or session' }, 422: { description: 'Invalid days' } },
    },
    async ({ query }, _req, res) => {
      const accountId = userOf(res).actor.accountId;
      const actor = { accountId, isAdmin: false, apiKeyId: 0 };
      const now = new Date();
      const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
      const from = new Date(to.getTime() - (query.days ?? 30) * 86_400_000);
      const count = async (status: string[]) =>
        (await tasks.listTasks({ actor, page: { page: 1, pageSize: 1 }, status, kind: '', appId: '', createdFrom: from.toISOString(), createdTo: to.toISOString() }, rpcFor(res))).page?.total ?? 0;
      // Each figure is counted for itself (exact up to 100, the planner's estimate above, as lists are): differences of estimates are not counts.
      const [total, completed, failed, cancelled, inFlight] = await Promise.all([count([]), count([TaskStatus.Completed]), count([TaskStatus.Failed]), count([TaskStatus.Cancelled]), count([TaskStatus.Waiting, TaskStatus.Running])]);
      res.json({ account_id: accountId, from: from.toISOString(), to: to.toISOString(), total, completed, failed, cancelled, in_flight: inFlight, error_rate: completed + failed === 0 ? null : failed / (completed + failed) });
    },
  );
  return router;
}
