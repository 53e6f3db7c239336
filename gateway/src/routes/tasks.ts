import { Router, type RequestHandler } from 'express';
import { AppError, TASK_KINDS } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { principalOf, requireApiKey } from '../auth/api-key';
import { countExecution } from '../metrics/executions';
import { executeAsync, executeJson, executeStream, idempotencyKeyOf } from './tasks-execute';
import { MAX_BODY_API_KEY_CHARS, agentVariantBody, appPath, completionSchema, executeAsyncBody, executeBody, idempotencyHeader, submissionSchema, taskErrors } from './tasks-schemas';

/**
 * The variant's body `api_key`: used as the credential when no Authorization header is sent;
 * when both are sent they must be the same key (401 otherwise).
 */
const bodyApiKey: RequestHandler = (req, _res, next) => {
  const key = (req.body as { api_key?: unknown } | undefined)?.api_key;
  if (key !== undefined && key !== null && typeof key !== 'string') throw AppError.field(['body', 'api_key'], 'api_key must be a string', 'string_type');
  if (typeof key !== 'string' || key === '') return next();
  if (key.length > MAX_BODY_API_KEY_CHARS) throw AppError.field(['body', 'api_key'], `api_key must be at most ${MAX_BODY_API_KEY_CHARS} characters`, 'too_big');
  const header = req.headers.authorization;
  if (!header) {
    req.headers.authorization = `Bearer ${key}`;
    return next();
  }
  if (/^Bearer +(\S+) *$/i.exec(header)?.[1] !== key) throw AppError.unauthenticated('api_key in the body does not match the key in the Authorization header');
  next();
};

const executionErrors = {
  ...taskErrors,
  404: { description: 'No app with this app_id for this kind (an app of another kind is the same 404)' },
  409: { description: 'Idempotency-Key reused with another body, or its first request still running or cancelled' },
  413: { description: 'Request body too large' },
  503: {
    description:
      'The upstream model provider failed (detail says how), or Tollgate is at capacity (Retry-After: 1). A stream that fails before any content answers this status with {detail} instead of an event stream',
  },
  504: { description: 'The upstream model provider did not answer in time, or the submission outlived the gateway deadline (its task, if it came to exist, still runs and is charged by its outcome)' },
};

/** `POST /v1/<kind>/<app_id>/sync|async` for the four kinds, and the `POST /v1/agent/` variant. */
export function taskRoutes(deps: GatewayDeps): Router {
  const router = Router();
  for (const kind of TASK_KINDS) {
    const auth = requireApiKey(deps, () => kind);
    const tags = ['Task execution'];
    deps.book.add(
      router,
      {
        method: 'post',
        path: `/v1/${kind}/:app_id/sync`,
        summary: `Run a ${kind} app and wait for its answer`,
        description: 'stream:false answers the completion JSON; stream:true answers text/event-stream chunks ending with `data: [DONE]`. Optional `Idempotency-Key` header.',
        tags,
        security: 'apiKey',
        headers: idempotencyHeader,
        params: appPath,
        body: executeBody,
        before: [countExecution(() => ({ kind, mode: 'sync' })), auth],
        responses: {
          200: { description: 'stream:false: the completion JSON. stream:true: text/event-stream of `data: <chat.completion.chunk>` events, then `data: [DONE]`', schema: completionSchema },
          ...executionErrors,
        },
      },
      async ({ params, body }, req, res) => {
        if (body.app_id !== undefined && body.app_id !== params.app_id) throw AppError.field(['body', 'app_id'], 'app_id in the body must equal the app_id in the path');
        const ex = { kind, appId: params.app_id, ...body, idempotencyKey: idempotencyKeyOf(req) };
        if (body.stream) await executeStream(deps, principalOf(res), ex, req, res);
        else await executeJson(deps, principalOf(res), ex, res);
      },
    );
    deps.book.add(
      router,
      {
        method: 'post',
        path: `/v1/${kind}/:app_id/async`,
        summary: `Submit a ${kind} task; poll /v1/task-query/<task_number> or stream its /events`,
        description: 'Optional `Idempotency-Key` header: the same key and body answer the same task.',
        tags,
        security: 'apiKey',
        headers: idempotencyHeader,
        params: appPath,
        body: executeAsyncBody,
        before: [countExecution(() => ({ kind, mode: 'async' })), auth],
        responses: { 200: { description: 'Accepted (status 等待中)', schema: submissionSchema }, ...executionErrors },
      },
      async ({ params, body }, req, res) => {
        if (body.app_id !== undefined && body.app_id !== params.app_id) throw AppError.field(['body', 'app_id'], 'app_id in the body must equal the app_id in the path');
        await executeAsync(deps, principalOf(res), { kind, appId: params.app_id, ...body, stream: false, idempotencyKey: idempotencyKeyOf(req) }, res);
      },
    );
  }

  deps.book.add(
    router,
    {
      method: 'post',
      path: '/v1/agent/',
      summary: 'Run an agent app (second variant): wait_response true answers the completion, false submits it',
      description:
        'Any call_params object runs. The conversation is the top-level `messages`, else call_params.messages, else call_params.query, else one user message built from call_params: ' +
        "by the app's `input_template` setting, or as `key: value` lines (docs/tasks.md). `api_key` in the body is used when no Authorization header is sent.",
      tags: ['Task execution'],
      security: 'apiKey',
      headers: idempotencyHeader,
      body: agentVariantBody,
      before: [countExecution((req) => ({ kind: 'agent', mode: (req.body as { wait_response?: unknown } | undefined)?.wait_response === false ? 'async' : 'sync' })), bodyApiKey, requireApiKey(deps, () => 'agent')],
      responses: { 200: { description: 'The completion (wait_response true) or the submission (false)', schema: completionSchema.or(submissionSchema) }, ...executionErrors },
    },
    async ({ body }, req, res) => {
      const ex = { kind: 'agent', appId: body.app_id, messages: body.messages ?? [], call_params: body.call_params, stream: false, idempotencyKey: idempotencyKeyOf(req) };
      if (body.wait_response) await executeJson(deps, principalOf(res), ex, res);
      else await executeAsync(deps, principalOf(res), ex, res);
    },
  );
  return router;
}
