import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { RouteBook } from '../http/route-book';
import { registerSecuritySchemes } from './security';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const { version } = require('../../package.json') as { version: string };

const TAGS = [
  { name: 'Tasks', description: 'Task execution (sync, stream, async) and task management, `/v1/...`; `Authorization: Bearer <API_KEY>`; errors `{detail}`.' },
  { name: 'API keys', description: 'Key management, form-encoded, with the `token` form field; also served under `/v1/apikeys/*`.' },
  { name: 'Documents', description: 'Docs API, HTTPS only, `{code,message,data,timestamp}` envelope; `/api/...` is served as the same API.' },
  { name: 'Search', description: 'Full-text, suggest and advanced search over documents; docs API envelope.' },
  { name: 'Users', description: 'Accounts; docs API envelope.' },
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
