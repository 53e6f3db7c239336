import express, { Router } from 'express';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/document';
import { SWAGGER_UI_FILES, referencePage, swaggerUiAssets } from '../openapi/reference-page';

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document, built on first request, when every router has
 * been added) and `GET /docs`, the interactive reference page served from swagger-ui-dist.
 */
export function openApiRoutes(deps: GatewayDeps): Router {
  const router = Router();
  let document: OpenApiDocument | undefined;
  deps.book.add(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      tags: ['Operations'],
      security: 'none',
      responses: { 200: { description: 'The OpenAPI document of the whole public surface', schema: z.object({ openapi: z.string() }).loose() } },
    },
    (_input, _req, res) => {
      document ??= buildOpenApiDocument(deps.book);
      res.json(document);
    },
  );
  router.get('/docs', (req, res) => {
    if (req.path.endsWith('/')) return res.redirect(301, '../docs');
    res.type('html').send(referencePage);
  });
  const assets = express.static(swaggerUiAssets, { index: false, fallthrough: true, maxAge: '1h' });
  router.use('/docs', (req, res, next) => (SWAGGER_UI_FILES.includes(req.path.slice(1)) ? assets(req, res, next) : next()));
  return router;
}
