import { Router } from 'express';
import type { GatewayDeps } from '../deps';
import { upstreamHealth } from '../upstreams';

/** `/healthz`: the process answers. `/readyz`: every upstream gRPC health check passes. */
export function healthRoutes({ upstreams }: GatewayDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const upstream = await upstreamHealth(upstreams);
    const ready = Object.values(upstream).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', upstream });
  });
  return router;
}
