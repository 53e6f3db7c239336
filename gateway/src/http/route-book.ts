import { OpenAPIRegistry, extendZodWithOpenApi, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, RequestHandler, Response, Router } from 'express';
import { z, type ZodType } from 'zod';
import { AppError, zodIssues } from '@tollgate/kit';
import { unsafeInput } from './input-safety';
import { takeBodyError } from './deferred-body';

extendZodWithOpenApi(z);

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';
export type Security = 'apiKey' | 'userToken' | 'formToken' | 'admin' | 'none';

export interface ResponseSpec {
  description: string;
  schema?: ZodType;
  /** Defaults to application/json; `text/event-stream` for SSE, `text/csv` for exports. */
  contentType?: string;
}

export interface RouteSpec<B extends ZodType | undefined, Q extends z.ZodObject | undefined, P extends z.ZodObject | undefined> {
  method: HttpMethod;
  /** Express path, canonical form (e.g. `/v1/:kind/:app_id/sync`). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Security;
  body?: B;
  bodyContentType?: 'application/json' | 'application/x-www-form-urlencoded';
  query?: Q;
  params?: P;
  /** Request headers the route reads (documented only; the handler checks them). */
  headers?: z.ZodObject;
  responses: Record<number, ResponseSpec>;
  /** Runs before validation (authentication, limits). */
  before?: RequestHandler[];
  /**
   * The operation is described by another module's `document()` (one path served by several routers,
   * e.g. `/v1/chat/completions` for provider keys and for app keys); this one only validates and serves.
   */
  documentedElsewhere?: boolean;
  /**
   * A body array whose items the handler checks for NUL characters and depth (unsafeInput) one by
   * one, as part of each item's own validation (bulk requests with per-item results).
   */
  bodyItemsCheckedAlone?: string;
}

type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export interface ValidatedInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

/** `value` with the items of its array `field` left out (the array itself stays, empty). */
function withoutItems(value: unknown, field: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Array.isArray((value as Record<string, unknown>)[field])) return value;
  return { ...value, [field]: [] };
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** `post` `/v1/:kind/:app_id/sync` → `postV1KindAppIdSync`: a stable name for client generators. */
const operationIdOf = (method: string, path: string) =>
  [method, ...path.split(/[^A-Za-z0-9]+/).filter(Boolean)].map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');

/** Every docs-API answer's rate-limit headers (docs-interface: on every response). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per hour for this token (or client address)', schema: { type: 'integer' as const } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current hour', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': { description: 'When the hour ends (Unix time, seconds)', schema: { type: 'integer' as const } },
};

const fieldIssue = z.object({ loc: z.array(z.string()), msg: z.string(), type: z.string() });
/** The docs API's error envelope (`data.errors` on a 422). */
const DOCS_ERROR = z.object({ code: z.number().int(), message: z.string(), data: z.object({ errors: z.array(fieldIssue).optional() }).passthrough(), timestamp: z.string(), request_id: z.string().optional() });
/** The task API's error: `detail` is a message, or the field issues of a 422. */
const TASK_ERROR = z.object({ detail: z.union([z.string(), z.array(fieldIssue)]), request_id: z.string().optional() });
/** The X-CSRF-Token a state-changing call made with the console's session cookie must send. */
const CSRF_HEADER = z.object({ 'X-CSRF-Token': z.string().optional().describe('With the session cookie (not with a Bearer token): the csrf_token of GET /api/v1/session') });

function parsePart<T>(schema: ZodType | undefined, value: unknown, loc: string, itemsCheckedAlone?: string): T {
  const unsafe = unsafeInput(itemsCheckedAlone ? withoutItems(value, itemsCheckedAlone) : value, [loc]);
  if (unsafe) throw AppError.invalid([unsafe], `${unsafe.loc.join('.')}: ${unsafe.msg}`);
  if (!schema) return undefined as T;
  // No body at all reads as `{}`; a body that is JSON `null` is what it is (not an object: 422).
  const result = schema.safeParse(value === undefined ? {} : value);
  if (!result.success) {
    const issues = zodIssues(result.error, [loc]);
    throw AppError.invalid(issues, issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
  return result.data as T;
}

/**
 * Every public route is defined through a RouteBook: the same zod schemas validate the request
 * (422 with `loc` = body|query|path + field) and describe it in the OpenAPI document.
 */
export class RouteBook {
  readonly registry = new OpenAPIRegistry();
  readonly routes: Array<{ method: HttpMethod; path: string; tags: readonly string[] }> = [];

  add<B extends ZodType | undefined = undefined, Q extends z.ZodObject | undefined = undefined, P extends z.ZodObject | undefined = undefined>(
    router: Router,
    spec: RouteSpec<B, Q, P>,
    handler: (input: ValidatedInput<Infer<B>, Infer<Q>, Infer<P>>, req: Request, res: Response) => Promise<unknown> | unknown,
  ): void {
    if (!spec.documentedElsewhere) this.document(spec);
    const validateAndHandle: RequestHandler = async (req, res) => {
      takeBodyError(res);
      const input = {
        params: parsePart<Infer<P>>(spec.params, req.params, 'path'),
        query: parsePart<Infer<Q>>(spec.query, req.query, 'query'),
        body: parsePart<Infer<B>>(spec.body, req.body, 'body', spec.bodyItemsCheckedAlone),
      };
      await handler(input, req, res);
    };
    router[spec.method](spec.path, ...(spec.before ?? []), validateAndHandle);
  }

  /** Lists and documents a route whose handlers the caller mounts itself (e.g. a proxied body that is never parsed). */
  document(spec: RouteSpec<ZodType | undefined, z.ZodObject | undefined, z.ZodObject | undefined>): void {
    this.routes.push({ method: spec.method, path: spec.path, tags: spec.tags });
    this.registry.registerPath(this.describe(spec));
  }

  private describe(spec: RouteSpec<ZodType | undefined, z.ZodObject | undefined, z.ZodObject | undefined>): RouteConfig {
    const scheme = spec.security === 'admin' ? 'userToken' : spec.security;
    // Wherever the user token is accepted, the console's session cookie is too (docs/console.md).
    const cookie = spec.security !== 'none' && scheme !== 'apiKey';
    const security = spec.security === 'none' ? [] : scheme === 'apiKey' ? [{ apiKey: [] }] : [{ [scheme]: [] }, { sessionCookie: [] }];
    const docsApi = spec.path.startsWith('/api/');
    const headers = cookie && spec.method !== 'get' ? (spec.headers ? spec.headers.extend(CSRF_HEADER.shape) : CSRF_HEADER) : spec.headers;
    const responses: Record<string, ResponseSpec> = { ...spec.responses };
    if (docsApi && !responses[429]) responses[429] = { description: 'Over the hourly rate limit of the token (or client address); Retry-After says when to try again' };
    return {
      method: spec.method,
      path: toOpenApiPath(spec.path),
      operationId: operationIdOf(spec.method, spec.path),
      summary: spec.summary,
      description: spec.description,
      tags: spec.tags,
      security,
      request: {
        params: spec.params,
        query: spec.query,
        headers,
        body: spec.body ? { required: true, content: { [spec.bodyContentType ?? 'application/json']: { schema: spec.body } } } : undefined,
      },
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, r]) => {
          // An error without its own schema has its surface's shape.
          const schema = r.schema ?? (Number(status) >= 400 ? (docsApi ? DOCS_ERROR : TASK_ERROR) : undefined);
          return [status, { description: r.description, headers: docsApi ? RATE_LIMIT_HEADERS : undefined, content: schema ? { [r.contentType ?? 'application/json']: { schema } } : undefined }];
        }),
      ),
    };
  }
}
