import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, CONFIG_SECTIONS, ErrorCode, type ConfigSectionName } from '@tollgate/kit';
import type { ConfigSection } from '@tollgate/protos/site';
import '../http/route-book';
import { INT32_MAX } from '../http/form-numbers';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { envelope } from './documents-schemas';
import { recordActivity } from '../activity/record-activity';
import { rpcFor } from '../http/request-id';
import { decimalInt } from '../http/form-numbers';

const SUMMARIES: Record<ConfigSectionName, string> = {
  site: 'Site settings: name, description, base URL, default language, logo URL, contact',
  theme: 'Theme: colours (hex), font, default dark mode, custom CSS (at most 20,000 characters)',
  search: 'Search settings applied by the search service: synonym groups, stop words, typo tolerance',
  plugins: 'Renderer plugins (table_of_contents, heading_anchors, code_highlighting): enabled and settings; an unknown plugin is a 422',
  integrations: 'Outbound settings: default webhook events, a notification URL (https) and the activity types it is told about',
};

/** `"<section>-<version>"`, strong: the section changes exactly when its version does. */
export const etagOf = (s: ConfigSection) => `"${s.section}-${s.version}"`;

/** The version an If-Match names for this section; 428 when absent, 412 when it names no version of it. */
function expectedVersion(req: Request, section: string, current: () => Promise<ConfigSection>): Promise<number> | number {
  const header = req.header('if-match');
  if (!header) throw new AppError(ErrorCode.PreconditionRequired, `If-Match is required: send the ETag of your last GET /api/v1/config/${section}`);
  if (header.trim() === '*') return current().then((s) => s.version);
  const stale = () => new AppError(ErrorCode.PreconditionFailed, `If-Match ${header.slice(0, 200)} does not name the current version of the ${section} section; GET it again for its ETag`);
  // Strong comparison (RFC 9110): a weak tag or another spelling of the number matches no ETag this API sends.
  const versions = header.split(',').flatMap((tag) => {
    const m = /^\s*"([a-z]+)-(0|[1-9]\d{0,9})"\s*$/.exec(tag);
    return m && m[1] === section && Number(m[2]) <= INT32_MAX ? [Number(m[2])] : [];
  });
  if (versions.length === 0) throw stale();
  if (versions.length === 1) return versions[0];
  // A list: the write is conditional on whichever of its versions is the current one.
  return current().then((s) => {
    if (!versions.includes(s.version)) throw stale();
    return s.version;
  });
}

const sectionJson = (s: ConfigSection) => ({ section: s.section, version: s.version, updated_by: s.updatedBy || null, updated_at: s.updatedAt || null, value: s.value ?? {} });

const errors = { 401: { description: 'Missing or unknown token' }, 403: { description: 'Plain HTTP; PUT without admin' } };
const entry = (value: z.ZodType) => z.object({ section: z.string(), version: z.number().int(), updated_by: z.number().int().nullable(), updated_at: z.string().nullable(), value });

/**
 * `/api/v1/config/<section>`: GET by any authenticated user (ETag), PUT by an admin with If-Match
 * (428 without, 412 when stale), validated by the section's schema (422), every version kept at
 * `…/history`. Owned and stored by the docs service. Decisions in docs/docs-api.md.
 */
export function configRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { site } = deps.upstreams;
  const anyUser = [requireUser(deps)];
  const admin = [requireUser(deps, { permission: 'admin' })];
  const tags = ['Configuration'];
  const sendSection = (res: Response, s: ConfigSection, message?: string) => {
    res.setHeader('ETag', etagOf(s));
    sendEnvelope(res, sectionJson(s), message ? { message } : undefined);
  };

  for (const name of Object.keys(CONFIG_SECTIONS) as ConfigSectionName[]) {
    const schema = CONFIG_SECTIONS[name];
    const path = `/api/v1/config/${name}`;
    deps.book.add(
      router,
      { method: 'get', path, summary: SUMMARIES[name], description: 'version 0 (and updated_at null) means never changed: the defaults. The ETag header names the version.', tags, security: 'userToken', before: anyUser, responses: { 200: { description: 'The section; ETag header', schema: envelope(entry(schema)) }, ...errors } },
      async (_input, _req, res) => sendSection(res, await site.getConfig({ section: name }, rpcFor(res))),
    );

    deps.book.add(
      router,
      {
        method: 'put',
        path,
        summary: `Replace the ${name} section (admin; If-Match required)`,
        description: 'The whole section, every field. `If-Match: "<section>-<version>"` (the ETag of a GET) is required: 428 without it, 412 when the section changed since. `If-Match: *` overwrites whatever is there.',
        tags,
        security: 'admin',
        headers: z.object({ 'If-Match': z.string().describe('The ETag of your last GET of the section (`"<section>-<version>"`, a list of them, or `*`)') }),
        body: schema,
        before: admin,
        responses: {
          200: { description: 'Saved; the new ETag in the header', schema: envelope(entry(schema)) },
          412: { description: 'If-Match names an older version (someone changed it since)' },
          422: { description: 'Does not match the section schema; data.errors lists the fields' },
          428: { description: 'If-Match missing' },
          ...errors,
        },
      },
      async ({ body }, req, res) => {
        const expected = await expectedVersion(req, name, () => site.getConfig({ section: name }, rpcFor(res)));
        const saved = await site.putConfig({ actor: userOf(res).actor, section: name, value: body as Record<string, unknown>, expectedVersion: expected }, rpcFor(res));
        recordActivity(deps, req, res, { type: 'config.updated', target_type: 'config', target_id: name, summary: `changed the ${name} configuration (version ${saved.version})` });
        sendSection(res, saved, `${name} configuration saved`);
      },
    );

    deps.book.add(
      router,
      {
        method: 'get',
        path: `${path}/history`,
        summary: `Every version of the ${name} section, newest first, with who and when`,
        tags,
        security: 'userToken',
        query: z.object({ page: decimalInt(1, 100_000).optional(), limit: decimalInt(1, 100).optional() }),
        before: anyUser,
        responses: { 200: { description: 'One page', schema: envelope(z.object({ entries: z.array(entry(schema)), page: z.number().int(), limit: z.number().int(), total: z.number().int() })) }, ...errors },
      },
      async ({ query }, _req, res) => {
        const page = query.page ?? 1;
        const limit = query.limit ?? 20;
        const out = await site.configHistory({ section: name, page: { page, pageSize: limit } }, rpcFor(res));
        sendEnvelope(res, { entries: out.entries.map(sectionJson), page, limit, total: out.page?.total ?? 0 });
      },
    );
  }
  return router;
}
