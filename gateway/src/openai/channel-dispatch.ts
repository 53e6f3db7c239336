import { Router, type RequestHandler } from 'express';
import type { GatewayDeps } from '../deps';
import { keyChannel } from '../auth/api-key';
import { rpcFor } from '../http/request-id';
import { bearerCredential } from '../auth/bearer';
import { checkDeclaredLength } from '../passthrough/body-limit';
import { sendOpenAiError } from './errors';

/**
 * `POST /v1/chat/completions` and `GET /v1/models` serve two audiences: a `provider:<name>` key gets the
 * provider passthrough (`passthrough`, mounted inside, unchanged, body unparsed); any other key
 * leaves this router, so the request reaches the body parsers and the OpenAI-style app routes. The key
 * is checked without a kind first (format, existence, status, account); a failure there, before
 * the channel is known, is answered the OpenAI way (`error` object beside `detail`).
 */
export function byKeyChannel(deps: GatewayDeps, passthrough: Router): Router {
  const router = Router();
  const dispatch: RequestHandler = async (req, res, next) => {
    // A declared Content-Length over the limit is refused before the key's checks, as the passthrough always did.
    let tooLarge: unknown = null;
    try {
      checkDeclaredLength(req, deps.config.BODY_LIMIT_BYTES);
    } catch (err) {
      tooLarge = err;
    }
    let channel: string;
    try {
      channel = await keyChannel(deps, bearerCredential(req, 'API_KEY'), rpcFor(res));
    } catch (err) {
      return sendOpenAiError(req, res, tooLarge ?? err);
    }
    if (channel.startsWith('provider:')) return next();
    if (tooLarge) return sendOpenAiError(req, res, tooLarge);
    next('router');
  };
  router.post('/v1/chat/completions', dispatch);
  router.get('/v1/models', dispatch);
  router.use(passthrough);
  return router;
}
