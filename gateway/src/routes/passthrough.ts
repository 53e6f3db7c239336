import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import '../http/route-book';
import type { GatewayDeps } from '../deps';
import { principalOf, requireApiKey } from '../auth/api-key';
import { admitExecution } from '../billing/admission';
import { newTaskNumber } from '../billing/task-number';
import { checkDeclaredLength } from '../passthrough/body-limit';
import { settleExchange, startExchange } from '../passthrough/exchange';
import { providerForChannel } from '../passthrough/providers';
import { passthroughProxy } from '../passthrough/proxy';
import { OPENAI_COMPATIBLE_TAG } from '../openai/errors';

const KIND = 'passthrough';

const chatBody = z
  .object({
    model: z.string(),
    messages: z.array(z.object({ role: z.string(), content: z.unknown() }).catchall(z.unknown())),
    stream: z.boolean().optional(),
  })
  .catchall(z.unknown())
  .openapi({ description: "The OpenAI chat-completions request. Provider keys: forwarded byte for byte (not validated here). App keys: `model` is `<kind>/<app_id>`, validated as on the app's /chat/completions route" });
const upstreamAnswer = z.record(z.string(), z.unknown()).openapi({ description: "The provider's answer, unchanged" });

const errors = {
  401: { description: 'Missing, malformed, unknown or expired API key' },
  403: { description: 'The key or its account is disabled; an app key naming a kind outside its channel or permissions' },
  404: { description: 'App keys: no app runnable with this key under that model id (OpenAI code model_not_found)' },
  413: { description: 'Request body over BODY_LIMIT_BYTES' },
  429: { description: 'Quota, requests-per-minute or concurrency limit of the key' },
  502: { description: 'The provider is unreachable or broke off before answering; refunded' },
  503: { description: "The key's provider is not configured on this gateway" },
  504: { description: 'The provider stayed silent longer than its timeout; refunded' },
};
const description =
  'Chosen by the key’s channel. A `provider:<name>` key: passed through to that provider’s configured OpenAI-compatible upstream with the provider’s own API key, ' +
  'billed per request (`passthrough` price); upstream error answers are passed through unchanged and refunded (docs/passthrough.md). ' +
  'A `platform` or `custom:` key: the apps it may run, as OpenAI models with ids `<kind>/<app_id>`; a chat completion runs the app named by `model` exactly as its `/sync` route does, ' +
  'and errors carry OpenAI’s error object `{error: {message, type, code, param}}` beside `detail` (docs/openai.md). Key failures found before the channel is known (missing, malformed, unknown, disabled key) carry both for every key.';

/**
 * `POST /v1/chat/completions` and `GET /v1/models` for provider-channel keys: checked (size,
 * key, channel, provider), admitted per request, then proxied with the body unparsed. Mounted
 * before the body parsers.
 */
export function passthroughRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const declaredSize: RequestHandler = (req, _res, next) => {
    checkDeclaredLength(req, deps.config.BODY_LIMIT_BYTES);
    next();
  };
  const admit: RequestHandler = async (_req, res, next) => {
    const principal = principalOf(res);
    const provider = providerForChannel(deps.config.PROVIDERS, principal.key.channel, deps.config.PASSTHROUGH_TIMEOUT_MS);
    const taskNumber = newTaskNumber();
    await admitExecution(deps, principal, { kind: KIND, appId: provider.name, taskNumber });
    const exchange = startExchange(res, provider, taskNumber);
    res.once('close', () => void settleExchange(deps, exchange));
    next();
  };
  const chain = [declaredSize, requireApiKey(deps, () => KIND), admit, passthroughProxy(deps)];
  const common = { tags: ['Provider passthrough', OPENAI_COMPATIBLE_TAG], security: 'apiKey' as const, description };

  deps.book.document({
    ...common,
    method: 'post',
    path: '/v1/chat/completions',
    summary: "Chat completion: the app named by model (app keys) or the key's provider (provider keys); OpenAI-compatible, stream or not",
    body: chatBody,
    responses: {
      200: { description: 'stream:false: the chat.completion JSON. stream:true: text/event-stream of chat.completion.chunk events, flushed as they come', schema: upstreamAnswer },
      ...errors,
    },
  });
  router.post('/v1/chat/completions', ...chain);

  deps.book.document({
    ...common,
    method: 'get',
    path: '/v1/models',
    summary: "Models: the apps the key may run (app keys) or the key's provider's list (provider keys); OpenAI-compatible",
    responses: { 200: { description: 'App keys: `{object: "list", data: [{id: "<kind>/<app_id>", object: "model", created, owned_by, kind, app_id, name}]}`. Provider keys: the provider’s model list', schema: upstreamAnswer }, ...errors },
  });
  router.get('/v1/models', ...chain);
  return router;
}
