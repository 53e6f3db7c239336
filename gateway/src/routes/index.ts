import { Router } from 'express';
import type { GatewayDeps } from '../deps';
import { apiSurface } from './api-surface';
import { healthRoutes } from './health';

/** Routers that read the raw request body themselves (mounted before the body parsers). */
export function rawBodyRoutes(_deps: GatewayDeps): Router[] {
  return [];
}

/** Routers that receive parsed JSON / form bodies. Each area adds its router factory here. */
export function parsedBodyRoutes(deps: GatewayDeps): Router[] {
  const docsApi = Router();
  docsApi.use('/api', ...apiSurface(deps));
  return [healthRoutes(deps), docsApi];
}
