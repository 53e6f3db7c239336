import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { RouteBook } from '../http/route-book';
import { registerSecuritySchemes } from './security';
import { OPENAI_COMPATIBLE_TAG } from '../openai/errors';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const { version } = require('../../package.json') as { version: string };

const TAGS = [
  { name: 'Tasks', description: 'Task execution (sync, stream, async) and task management, `/v1/...`; `Authorization: Bearer <API_KEY>`; errors `{detail}`.' },
  { name: OPENAI_COMPATIBLE_TAG, description: 'Every app through the OpenAI chat-completions protocol (`/v1/<kind>/<app_id>/chat/completions`, `/v1/chat/completions` and `/v1/models` for app keys); errors carry OpenAI’s `error` object beside `detail`. See docs/openai.md.' },
  { name: 'API keys', description: 'Key management, form-encoded, with the `token` form field; also served under `/v1/apikeys/*`.' },
  { name: 'Documents', description: 'Docs API, HTTPS only, `{code,message,data,timestamp}` envelope (`data` always an object); `/api/...` is served as the same API, and the document routes also under `/v1/docs`. OPTIONS on any docs-API path answers the allowed methods without a token; CORS for the origins in `CORS_ORIGINS`.' },
  { name: 'Search', description: 'Full-text, suggest and advanced search over documents; docs API envelope.' },
  { name: 'Users', description: 'Accounts; docs API envelope.' },
  { name: 'Analytics', description: 'Usage, performance, users, content and search reports over hourly/daily rollups; `from`/`to` days, `interval` hour|day; own data, or everyone for admins.' },
  { name: 'Configuration', description: 'Site, theme, search, plugins and integrations sections: GET with ETag, PUT by admins with If-Match (428 without, 412 stale), history.' },
  { name: 'Activity', description: 'What accounts did (documents, keys, users, configuration), newest first; own, or anyone for admins.' },
  { name: 'Webhooks', description: 'Signed, retried deliveries of task and document events (docs/webhooks.md); docs API envelope.' },
  { name: 'Console session', description: 'Signing in to the web console (`/console`): the session cookie and its CSRF token; docs/console.md.' },
  { name: 'Operations', description: 'Metrics and this document.' },
];

function withSecuritySchemes(registry: OpenAPIRegistry): OpenAPIRegistry {
  const schemes = registry.definitions.filter((d) => d.type === 'component' && d.componentType === 'securitySchemes');
  if (schemes.length === 0) registerSecuritySchemes(registry);
  return registry;
}

/**
 * The OpenAPI 3.1 document of every route added through the RouteBook, made from the same zod
 * schemas that validate the requests. Build it after all routers exist.
 */
export function buildOpenApiDocument(book: RouteBook): OpenApiDocument {
  const generator = new OpenApiGeneratorV31(withSecuritySchemes(book.registry).definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tollgate API',
      version,
      description:
        'AI tasks behind API keys (task API `/v1/...`, key management `/apikeys/*`) and the documentation content API (`/api/v1/...`, HTTPS only). ' +
        'Generated from the request schemas the gateway validates with; see docs/openapi.md.',
    },
    servers: [{ url: '/', description: 'This gateway (the docs API answers only over HTTPS)' }],
  });
  const used = new Set(Object.values(document.paths ?? {}).flatMap((item) => Object.values(item as Record<string, { tags?: string[] }>).flatMap((op) => op?.tags ?? [])));
  document.tags = [...TAGS.filter((t) => used.has(t.name)), ...[...used].filter((t) => !TAGS.some((k) => k.name === t)).map((name) => ({ name }))];
  return document;
}
