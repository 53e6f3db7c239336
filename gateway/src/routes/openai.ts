import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, ErrorCode, TASK_KINDS } from '@tollgate/kit';
import type { GatewayDeps } from '../deps';
import { principalOf, requireApiKey, type KeyPrincipal } from '../auth/api-key';
import { countExecution } from '../metrics/executions';
import { appChatCompletionBody, chatCompletionBody, toExecution } from '../openai/chat-request';
import { OPENAI_COMPATIBLE_TAG, openAiErrors } from '../openai/errors';
import { modelIdOf, modelJson, modelListSchema, modelSchema, parseModelId, runnableApps, runnableKinds } from '../openai/models';
import { executeJson, executeStream, idempotencyKeyOf, type Execution } from './tasks-execute';
import { appPath, completionSchema, idempotencyHeader } from './tasks-schemas';
import { rpcFor } from '../http/request-id';

const openAiError = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable(), param: z.string().nullable() }).describe("OpenAI's error object, read by the official SDKs"),
  detail: z.unknown().describe('the task API’s own field: a string, or the 422 list of {loc, msg, type}'),
});
const errors = {
  401: { description: 'Missing, malformed, unknown or expired API key (code invalid_api_key)', schema: openAiError },
  403: { description: 'The key’s channel, status or account forbids this kind (code permission_denied)', schema: openAiError },
  404: { description: 'No such app runnable with this key (code model_not_found)', schema: openAiError },
  409: { description: 'Idempotency-Key reused with another body, or its first request still running (code conflict)', schema: openAiError },
  413: { description: 'Request body too large (code request_too_large)', schema: openAiError },
  422: { description: 'A parameter failed validation (type invalid_request_error, param = the field); the status stays 422 as on the task API', schema: openAiError },
  429: { description: 'Quota used up (type and code insufficient_quota, `x-should-retry: false`), or a rate / concurrency limit (code rate_limit_exceeded)', schema: openAiError },
  503: { description: 'The upstream model provider failed (type server_error)', schema: openAiError },
  504: { description: 'The upstream model provider did not answer in time (type server_error, code timeout)', schema: openAiError },
};
const answer = {
  200: { description: 'stream:false: the chat.completion JSON (with task_number). stream:true: text/event-stream of chat.completion.chunk events, then `data: [DONE]`', schema: completionSchema },
};
const tags = [OPENAI_COMPATIBLE_TAG];

/** The same execution the spec's `/sync` route runs: completion JSON, or the SSE stream. */
async function run(deps: GatewayDeps, principal: KeyPrincipal, ex: Execution, req: Request, res: Response): Promise<void> {
  if (ex.stream) await executeStream(deps, principal, ex, req, res);
  else await executeJson(deps, principal, ex, res);
}

const unknownModel = (model: string) =>
  AppError.notFound(`the model ${JSON.stringify(model)} does not exist or this key cannot run it: with a platform or custom key, model names an app as <kind>/<app_id> (GET /v1/models lists them)`);

/** The model the body names, or null when it is not written `<kind>/<app_id>`. */
const modelOfBody = (req: Request) => parseModelId((req.body as { model?: unknown } | undefined)?.model);

/**
 * Every app as an OpenAI-compatible endpoint: `POST /v1/<kind>/<app_id>/chat/completions` (the
 * app's own base URL for the SDKs), and for platform and custom keys `POST /v1/chat/completions`
 * with `model: "<kind>/<app_id>"` and `GET /v1/models`. Errors carry OpenAI's error object beside
 * `detail` (docs/openai.md). Provider keys never reach the shared paths here (byKeyChannel).
 */
export function openAiRoutes(deps: GatewayDeps): Router {
  const router = Router();

  for (const kind of TASK_KINDS) {
    deps.book.add(
      router,
      {
        method: 'post',
        path: `/v1/${kind}/:app_id/chat/completions`,
        summary: `Run a ${kind} app through the OpenAI chat-completions protocol (baseURL = /v1/${kind}/<app_id>)`,
        description:
          'Behaves as `/sync` (key checks, billing, stream and non-stream), with the body an OpenAI SDK sends: text content parts are joined, `developer` is read as `system`, ' +
          '`max_completion_tokens` as `max_tokens`; `model` is a model override as on /sync, except that the app’s own `<kind>/<app_id>` or `<app_id>` means its own model. Errors carry the OpenAI error object.',
        tags,
        security: 'apiKey',
        headers: idempotencyHeader,
        params: appPath,
        body: appChatCompletionBody,
        before: [countExecution(() => ({ kind, mode: 'sync' })), requireApiKey(deps, () => kind)],
        responses: { ...answer, ...errors },
      },
      async ({ params, body }, req, res) => {
        const own = body.model === undefined || body.model === params.app_id || body.model === modelIdOf(kind, params.app_id);
        await run(deps, principalOf(res), toExecution(body, { kind, appId: params.app_id, model: own ? undefined : body.model, idempotencyKey: idempotencyKeyOf(req) }), req, res);
      },
    );
  }

  deps.book.add(
    router,
    {
      method: 'post',
      path: '/v1/chat/completions',
      summary: 'Chat completion',
      tags,
      security: 'apiKey',
      documentedElsewhere: true,
      body: chatCompletionBody,
      before: [countExecution((req) => (modelOfBody(req) ? { kind: modelOfBody(req)!.kind, mode: 'sync' } : null)), requireApiKey(deps, (req) => modelOfBody(req)?.kind ?? '')],
      responses: { ...answer, ...errors },
    },
    async ({ body }, req, res) => {
      const target = parseModelId(body.model);
      if (!target) throw unknownModel(body.model);
      await run(deps, principalOf(res), toExecution(body, { ...target, idempotencyKey: idempotencyKeyOf(req) }), req, res);
    },
  );

  const listKey = requireApiKey(deps, () => '', { spendsQuota: false });
  deps.book.add(
    router,
    { method: 'get', path: '/v1/models', summary: 'Models', tags, security: 'apiKey', documentedElsewhere: true, before: [listKey], responses: { 200: { description: 'The apps this key may run', schema: modelListSchema }, ...errors } },
    async (_input, _req, res) => {
      res.json({ object: 'list', data: (await runnableApps(deps, principalOf(res), rpcFor(res))).map(modelJson) });
    },
  );

  const retrieve = async (model: string, res: Response) => {
    const principal = principalOf(res);
    const target = parseModelId(model);
    if (!target || !runnableKinds(principal).includes(target.kind)) throw unknownModel(model);
    const app = await deps.upstreams.tasks.getApp({ actor: principal.actor, appId: target.appId }, rpcFor(res)).catch((err: unknown) => {
      throw err instanceof AppError && err.code === ErrorCode.NotFound ? unknownModel(model) : err;
    });
    if (app.kind !== target.kind) throw unknownModel(model);
    res.json(modelJson(app));
  };
  const retrieveSpec = {
    method: 'get' as const,
    summary: 'One app as an OpenAI model (platform and custom keys)',
    description: 'The id is `<kind>/<app_id>`, sent either as two path segments or as one with the slash encoded (`agent%2Fdemo-agent`, as the OpenAI SDKs send it).',
    tags,
    security: 'apiKey' as const,
    before: [listKey],
    responses: { 200: { description: 'The model', schema: modelSchema }, ...errors },
  };
  deps.book.add(router, { ...retrieveSpec, path: '/v1/models/:model', params: z.object({ model: z.string().min(1).max(200) }) }, ({ params }, _req, res) => retrieve(params.model, res));
  deps.book.add(router, { ...retrieveSpec, path: '/v1/models/:kind/:app_id', params: z.object({ kind: z.string().min(1).max(20), app_id: z.string().min(1).max(64) }) }, ({ params }, _req, res) =>
    retrieve(`${params.kind}/${params.app_id}`, res),
  );

  router.use(openAiErrors);
  return router;
}
