import type { Router } from 'express';
import type { GatewayDeps } from '../deps';
import { healthRoutes } from './health';

/** Routers that read the raw request body themselves (mounted before the body parsers). */
export function rawBodyRoutes(_deps: GatewayDeps): Router[] {
  return [];
}

/** Routers that receive parsed JSON / form bodies. */
export function parsedBodyRoutes(deps: GatewayDeps): Router[] {
  return [healthRoutes(deps)];
}
