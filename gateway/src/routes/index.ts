import { Router } from 'express';
import type { GatewayDeps } from '../deps';
import { apiSurface } from './api-surface';
import { healthRoutes } from './health';
import { apiKeyRoutes } from './apikeys';
import { usersRoutes } from './users';
import { billingRoutes } from './billing';
import { openApiRoutes } from './openapi';
import { metricsRoutes } from '../metrics';
import { taskRoutes } from './tasks';
import { taskQueryRoutes } from './task-query';
import { appRoutes } from './apps';
import { documentsRoutes } from './documents';
import { documentsBulkRoutes } from './documents-bulk';
import { searchRoutes } from './search';
import { passthroughRoutes } from './passthrough';
import { analyticsRoutes } from './analytics';
import { configRoutes } from './config';
import { activityRoutes } from './activity';
import { documentRenderRoutes } from './documents-render';
import { webhookRoutes } from './webhooks';
import { sessionRoutes } from './session';
import { credentialRoutes } from './credentials';
import { consoleRoutes } from './console';
import { taskStatsRoutes } from './task-stats';
import { openAiRoutes } from './openai';
import { byKeyChannel } from '../openai/channel-dispatch';

/**
 * Routers mounted before the body parsers: those that read the raw body themselves, and the docs
 * API's surface (envelope, HTTPS rule, auth, hourly limit), so that body errors (413, malformed
 * JSON) on `/api/*` are already in the envelope and counted, with the rate-limit headers.
 */
export function rawBodyRoutes(deps: GatewayDeps): Router[] {
  const docsApi = Router();
  docsApi.use('/api', ...apiSurface(deps));
  return [consoleRoutes(deps), sessionRoutes(deps), docsApi, byKeyChannel(deps, passthroughRoutes(deps))];
}

/** Routers that receive parsed JSON / form bodies. Each area adds its router factory here. */
export function parsedBodyRoutes(deps: GatewayDeps): Router[] {
  return [healthRoutes(deps), metricsRoutes(deps), openApiRoutes(deps), apiKeyRoutes(deps), usersRoutes(deps), billingRoutes(deps), taskRoutes(deps), openAiRoutes(deps), taskQueryRoutes(deps), appRoutes(deps), documentsRoutes(deps), documentsBulkRoutes(deps), documentRenderRoutes(deps), searchRoutes(deps), analyticsRoutes(deps), configRoutes(deps), activityRoutes(deps), webhookRoutes(deps), credentialRoutes(deps), taskStatsRoutes(deps)];
}
