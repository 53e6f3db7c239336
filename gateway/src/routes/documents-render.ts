import { Router } from 'express';
import { z } from 'zod';
import '../http/route-book';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { envelope, idParams } from './documents-schemas';
import { rpcFor } from '../http/request-id';

const renderedSchema = z.object({
  id: z.number().int(),
  version: z.number().int(),
  title: z.string(),
  html: z.string().openapi({ description: 'Sanitised HTML (no scripts, styles, event handlers or javascript: URLs)' }),
  toc: z.array(z.object({ level: z.number().int(), text: z.string(), anchor: z.string() })),
  plugins: z.array(z.string()).openapi({ description: 'The renderer plugins that were enabled' }),
});

/** `GET /api/v1/documents/<id>/render`: the document as sanitised HTML with the enabled renderer plugins (config/plugins). */
export function documentRenderRoutes(deps: GatewayDeps): Router {
  const router = Router();
  deps.book.add(
    router,
    {
      method: 'get',
      path: '/api/v1/documents/:id/render',
      summary: 'The document as sanitised HTML, with table of contents, heading anchors and code highlighting as configured',
      tags: ['Documents'],
      security: 'userToken',
      params: idParams,
      before: [requireUser(deps, { permission: 'docs_read' })],
      responses: { 200: { description: 'Rendered', schema: envelope(renderedSchema) }, 404: { description: 'No such document (or a draft of someone else, or in the trash)' }, 401: { description: 'Missing or unknown token' }, 403: { description: 'Missing permission, or plain HTTP' } },
    },
    async ({ params }, _req, res) => {
      const r = await deps.upstreams.site.renderDocument({ actor: userOf(res).actor, id: params.id }, rpcFor(res));
      sendEnvelope(res, { id: r.id, version: r.version, title: r.title, html: r.html, toc: r.toc, plugins: r.plugins });
    },
  );
  return router;
}
