import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { UpdateStatusRequest } from '@tollgate/protos/tasks';
import type { GatewayDeps } from '../deps';
import { requireApiKey, type KeyPrincipal } from '../auth/api-key';
import { httpStatusFor } from '../http/http-status';
import { AppError, type ErrorCode } from '@tollgate/kit';
import { taskEvents } from '../sse/task-events';
import { takeBodyError } from '../http/deferred-body';
import { boundInstant } from './task-dates';
import { taskJson } from './tasks-render';
import { batchQueryBody, batchUpdateBody, listQueryBody, statusUpdate, taskErrors, taskEventSchema, taskPath, taskSchema } from './tasks-schemas';
import { rpcFor } from '../http/request-id';

export const REPORTER_HEADER = 'x-reporter-token';
/** Longest reporter token passed on to the tasks service (issued ones are much shorter). */
const MAX_REPORTER_TOKEN_CHARS = 256;

/** Task management calls any key of the account may make (no task kind, so no channel check). */
const anyKey = (deps: GatewayDeps) => requireApiKey(deps, () => '', { spendsQuota: false });

/** Status updates: an externally-run app's reporter sends `X-Reporter-Token` instead of an API key. */
function keyOrReporter(deps: GatewayDeps): RequestHandler {
  const key = anyKey(deps);
  return (req, res, next) => {
    const token = req.headers[REPORTER_HEADER];
    if (typeof token === 'string' && token !== '' && !req.headers.authorization) {
      if (token.length > MAX_REPORTER_TOKEN_CHARS) throw AppError.unauthenticated(`invalid ${REPORTER_HEADER}: longer than ${MAX_REPORTER_TOKEN_CHARS} characters`);
      res.locals.reporterToken = token;
      return next();
    }
    return key(req, res, next);
  };
}

const actorOf = (res: Response) => (res.locals.principal as KeyPrincipal | undefined)?.actor;

function updateRequest(res: Response, u: z.infer<typeof statusUpdate>): UpdateStatusRequest {
  return { actor: actorOf(res), reporterToken: (res.locals.reporterToken as string | undefined) ?? '', taskNumber: u.task_number, status: u.status, taskProgress: u.task_progress, taskResult: u.task_result, comments: u.comments };
}

const notFound = { 404: { description: 'No such task of your account (unknown and foreign tasks alike)' } };
const listSchema = z.object({ items: z.array(taskSchema), page: z.number().int(), page_size: z.number().int(), total: z.number().int().describe('Matching tasks: exact up to 100, PostgreSQL\'s estimate above (never below 101)') });

/** Task query (single, batch, list, events) and status updates. */
export function taskQueryRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const tags = ['Task management'];
  const tasks = deps.upstreams.tasks;

  deps.book.add(
    router,
    { method: 'post', path: '/v1/task-query/batch', summary: 'Several tasks by number (1–100)', tags, security: 'apiKey', body: batchQueryBody, before: [anyKey(deps)], responses: { 200: { description: 'Found tasks, in the order asked, and the numbers not found', schema: z.object({ items: z.array(taskSchema), not_found: z.array(z.string()) }) }, ...taskErrors } },
    async ({ body }, _req, res) => {
      const out = await tasks.batchGetTasks({ actor: actorOf(res), taskNumbers: body.task_numbers }, rpcFor(res));
      res.json({ items: out.items.map(taskJson), not_found: out.notFound });
    },
  );
  deps.book.add(
    router,
    { method: 'post', path: '/v1/task-query/list', summary: "The account's tasks, newest first, filtered", tags, security: 'apiKey', body: listQueryBody, before: [anyKey(deps)], responses: { 200: { description: 'One page', schema: listSchema }, ...taskErrors } },
    async ({ body }, _req, res) => {
      const status = body.status === undefined ? [] : Array.isArray(body.status) ? body.status : [body.status];
      const out = await tasks.listTasks({ actor: actorOf(res), page: { page: body.page, pageSize: body.page_size }, status, kind: body.kind ?? '', appId: body.app_id ?? '', createdFrom: boundInstant(body.created_from, 'from'), createdTo: boundInstant(body.created_to, 'to') }, rpcFor(res));
      res.json({ items: out.items.map(taskJson), page: out.page?.page ?? body.page, page_size: out.page?.pageSize ?? body.page_size, total: out.page?.total ?? 0 });
    },
  );
  deps.book.add(
    router,
    { method: 'get', path: '/v1/task-query/:task_number', summary: 'One task: status, task_progress, task_result, comments', tags, security: 'apiKey', params: taskPath, before: [anyKey(deps)], responses: { 200: { description: 'The task', schema: taskSchema }, ...notFound, ...taskErrors } },
    async ({ params }, _req, res) => {
      res.json(taskJson(await tasks.getTask({ actor: actorOf(res), taskNumber: params.task_number }, rpcFor(res))));
    },
  );
  // Mounted by hand: any task number that is not a task of the caller (malformed, NUL, too long
  // included) is the same 404 here, as the number only ever names a subscription.
  deps.book.document({ method: 'get', path: '/v1/task-query/:task_number/events', summary: "Server-sent events of the task's status changes until a final state", description: 'A task number that is not a task of yours, whatever its form, answers 404.', tags, security: 'apiKey', params: taskPath, responses: { 200: { description: 'text/event-stream', schema: taskEventSchema, contentType: 'text/event-stream' }, ...notFound, ...taskErrors } });
  router.get('/v1/task-query/:task_number/events', anyKey(deps), async (req, res) => {
    takeBodyError(res);
    await taskEvents(deps, actorOf(res)!, String(req.params.task_number), req, res);
  });

  const statusErrors = { ...notFound, 409: { description: 'Illegal transition (the detail names both states)' }, ...taskErrors };
  deps.book.add(
    router,
    {
      method: 'post',
      path: '/v1/task-status/update',
      summary: 'Change a task status through the state machine',
      description: "等待中→执行中→已完成|已报错, 等待中|执行中→已取消. An owner's key may cancel; admin credentials and the app's reporter (X-Reporter-Token header) may make every change.",
      tags,
      security: 'apiKey',
      body: statusUpdate,
      before: [keyOrReporter(deps)],
      responses: { 200: { description: 'The task after the change', schema: taskSchema }, ...statusErrors },
    },
    async ({ body }, _req, res) => {
      res.json(taskJson(await tasks.updateStatus(updateRequest(res, body), rpcFor(res))));
    },
  );
  deps.book.add(
    router,
    {
      method: 'post',
      path: '/v1/task-status/batch-update',
      summary: 'Several status changes (1–100), each applied or refused on its own',
      tags,
      security: 'apiKey',
      body: batchUpdateBody,
      before: [keyOrReporter(deps)],
      responses: {
        200: {
          description: 'One result per update, in order: status_code is the HTTP status the single update would have answered',
          schema: z.object({ results: z.array(z.object({ task_number: z.string(), ok: z.boolean(), status_code: z.number().int(), detail: z.string().optional(), task: taskSchema.optional() })) }),
        },
        ...taskErrors,
      },
    },
    async ({ body }, _req, res) => {
      const out = await tasks.batchUpdateStatus({ updates: body.updates.map((u) => updateRequest(res, u)) }, rpcFor(res));
      res.json({
        results: out.results.map((r) =>
          r.ok && r.task ? { task_number: r.taskNumber, ok: true, status_code: 200, task: taskJson(r.task) } : { task_number: r.taskNumber, ok: false, status_code: httpStatusFor[r.errorCode as ErrorCode] ?? 500, detail: r.detail },
        ),
      });
    },
  );
  return router;
}
