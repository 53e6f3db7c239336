import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { GatewayDeps } from '../deps';
import { sendError } from '../http/errors';
import { markUpstreamFault, requestLog } from '../http/access-log';
import { bodyTooLarge, countedBody } from './body-limit';
import { exchangeOf, refundBeforeAnswer, type Exchange } from './exchange';

const isEventStream = (contentType: string | undefined) => /^text\/event-stream\b/i.test(contentType ?? '');

function exchangeFor(res: ServerResponse | undefined): Exchange {
  const ex = exchangeOf(res);
  if (!ex) throw new Error('passthrough proxy: the request was not admitted');
  return ex;
}

/** Over the body limit mid-stream: stop the upstream request, refund, answer 413 `{detail}`. */
async function rejectTooLarge(deps: GatewayDeps, res: Response, ex: Exchange): Promise<void> {
  ex.tooLarge = true;
  ex.proxyReq?.destroy();
  await refundBeforeAnswer(deps, ex);
  if (!res.headersSent) sendError(res, bodyTooLarge(deps.config.BODY_LIMIT_BYTES));
}

/** The upstream failed before answering: refund first, then 502 `{detail}` (504 when it stayed silent too long). */
async function answerUpstreamFailure(deps: GatewayDeps, res: Response, ex: Exchange, err: Error & { code?: string }): Promise<void> {
  ex.failed = true;
  await refundBeforeAnswer(deps, ex);
  if (res.headersSent || res.destroyed) return;
  const { name, timeoutMs } = ex.provider;
  const status = ex.timedOut ? 504 : 502;
  const detail = ex.timedOut ? `provider "${name}" did not answer within ${timeoutMs} ms` : `provider "${name}" is unreachable or failed: ${err.code ?? err.message}`;
  markUpstreamFault(res);
  requestLog(res, 'warn')?.warn({ provider: name, reason: err.code ?? err.message, timedOut: ex.timedOut === true }, 'upstream failed');
  res.status(status).json({ detail, request_id: res.getHeader('x-request-id') });
}

/**
 * Forwards an admitted request to its provider's OpenAI-compatible base URL
 * (`/v1/<rest>` → `<base_url>/<rest>`), body and answer streamed unchanged; the provider's API key
 * replaces the client's Authorization.
 */
export function passthroughProxy(deps: GatewayDeps): RequestHandler {
  const limit = deps.config.BODY_LIMIT_BYTES;
  return createProxyMiddleware<Request, Response>({
    changeOrigin: true,
    router: (req, res, options) => {
      const ex = exchangeFor(res);
      options.proxyTimeout = ex.provider.timeoutMs;
      options.buffer = countedBody(req, limit, () => void rejectTooLarge(deps, res!, ex));
      return ex.provider.baseUrl;
    },
    pathRewrite: (path) => path.replace(/^\/v1(?=\/|$)/, ''),
    on: {
      proxyReq: (proxyReq, _req, res) => {
        const ex = exchangeFor(res);
        if (ex.tooLarge) return void proxyReq.destroy();
        ex.proxyReq = proxyReq;
        proxyReq.on('timeout', () => {
          ex.timedOut = true;
        });
        if (ex.provider.apiKey) proxyReq.setHeader('authorization', `Bearer ${ex.provider.apiKey}`);
        else proxyReq.removeHeader('authorization');
        proxyReq.setHeader('accept-encoding', 'identity');
      },
      proxyRes: (proxyRes, _req, res) => {
        exchangeFor(res).upstreamStatus = proxyRes.statusCode;
        const upstreamId = proxyRes.headers['x-request-id'];
        delete proxyRes.headers['x-request-id'];
        if (upstreamId !== undefined) proxyRes.headers['x-upstream-request-id'] = upstreamId;
        if (isEventStream(proxyRes.headers['content-type'])) proxyRes.headers['x-accel-buffering'] = 'no';
      },
      error: (err, _req, res) => {
        const ex = exchangeOf(res);
        if (!ex || ex.tooLarge || !('headersSent' in res)) return;
        if (res.headersSent) return void res.destroy();
        void answerUpstreamFailure(deps, res, ex, err);
      },
    },
  });
}
