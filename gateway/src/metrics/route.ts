import { Router } from 'express';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { createGatewayMetrics } from './gateway-metrics';

/** `GET /metrics`: this gateway instance's Prometheus metrics. */
export function metricsRoutes(deps: GatewayDeps): Router {
  const metrics = (deps.metrics ??= createGatewayMetrics());
  const router = Router();
  deps.book.add(
    router,
    {
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics of this gateway instance',
      description: 'Text exposition format: HTTP requests by route template and status, executions by kind and outcome, quota rejections, process metrics.',
      tags: ['Operations'],
      security: 'none',
      responses: { 200: { description: 'Prometheus text format 0.0.4', schema: z.string(), contentType: 'text/plain' } },
    },
    async (_input, _req, res) => {
      res.setHeader('content-type', metrics.registry.contentType);
      res.send(await metrics.registry.metrics());
    },
  );
  return router;
}
