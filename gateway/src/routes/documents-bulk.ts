import { Router } from 'express';
import { z } from 'zod';
import { ErrorCode, zodIssues, type FieldIssue } from '@tollgate/kit';
import type { BulkCreateResult } from '@tollgate/protos/docs';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { recordActivity } from '../activity/record-activity';
import { httpStatusFor } from '../http/http-status';
import { createDocumentBody, envelope } from './documents-schemas';
import { rpcFor } from '../http/request-id';
import { unsafeInput } from '../http/input-safety';

/** Most documents in one bulk request. */
export const MAX_BULK_DOCUMENTS = 1_000;
/** How long the docs service may take for one bulk request (one transaction of up to 1,000 documents). */
const BULK_DEADLINE_MS = 120_000;

const bulkBody = z
  .object({
    documents: z
      .array(z.unknown().openapi({ description: 'A document as in POST /api/v1/documents (title, content, category, tags, status, slug); each is validated on its own' }))
      .min(1)
      .max(MAX_BULK_DOCUMENTS),
  })
  .strict();

const itemSchema = z.object({
  index: z.number().int().openapi({ description: 'Position of the document in the request' }),
  status: z.number().int().openapi({ description: '201 created, 422 invalid, 409 slug already used' }),
  id: z.number().int().optional(),
  slug: z.string().optional(),
  version: z.number().int().optional(),
  created_at: z.string().optional(),
  message: z.string().optional(),
  errors: z.array(z.object({ loc: z.array(z.string()), msg: z.string(), type: z.string() })).optional(),
});

type Item = z.infer<typeof itemSchema>;

const refused = (index: number, status: number, message: string, errors: FieldIssue[]): Item => ({ index, status, message, errors });

/** A docs-service issue (`body.title`) placed under its item (`body.documents.3.title`). */
const underItem = (index: number, issues: FieldIssue[]): FieldIssue[] => issues.map((i) => ({ ...i, loc: ['body', 'documents', String(index), ...i.loc.slice(i.loc[0] === 'body' ? 1 : 0)] }));

function fromService(r: BulkCreateResult): Item {
  if (!r.errorCode) return { index: r.index, status: 201, id: r.id, slug: r.slug, version: r.version, created_at: r.createdAt };
  const status = httpStatusFor[r.errorCode as ErrorCode] ?? 422;
  return refused(r.index, status, r.errorMessage, underItem(r.index, r.issues));
}

/**
 * `POST /api/v1/documents/bulk`: up to 1,000 documents in one request (docs_write). Every item is
 * validated on its own; the valid ones are created in one transaction, and `data.results` has one
 * result per item, in request order. Decisions in docs/docs-api.md.
 */
export function documentsBulkRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { docs } = deps.upstreams;
  deps.book.add(
    router,
    {
      method: 'post',
      path: '/api/v1/documents/bulk',
      summary: 'Create up to 1,000 documents at once; per-item results',
      description: 'Each document is validated on its own: invalid ones get a 422 result, a taken slug a 409, the rest are created together. The response is 200 whenever the request itself is well formed; read data.created and data.results.',
      tags: ['Documents'],
      security: 'userToken',
      body: bulkBody,
      bodyItemsCheckedAlone: 'documents',
      before: [requireUser(deps, { permission: 'docs_write' })],
      responses: {
        200: { description: 'One result per item', schema: envelope(z.object({ created: z.number().int(), failed: z.number().int(), results: z.array(itemSchema) })) },
        401: { description: 'Missing or unknown token' },
        403: { description: 'Missing permission, or plain HTTP' },
        413: { description: 'Body larger than BULK_BODY_LIMIT_BYTES' },
        422: { description: 'Not an object with 1 to 1,000 documents' },
      },
    },
    async ({ body }, req, res) => {
      const results: Item[] = new Array(body.documents.length);
      const valid: Array<{ index: number; doc: z.infer<typeof createDocumentBody> }> = [];
      body.documents.forEach((raw, index) => {
        const unsafe = unsafeInput(raw, ['body', 'documents', String(index)], 2);
        if (unsafe) return void (results[index] = refused(index, 422, 'document is invalid', [unsafe]));
        const parsed = createDocumentBody.safeParse(raw);
        if (parsed.success) valid.push({ index, doc: parsed.data });
        else results[index] = refused(index, 422, 'document is invalid', zodIssues(parsed.error, ['body', 'documents', String(index)]));
      });
      if (valid.length > 0) {
        const out = await docs.bulkCreateDocuments(
          {
            actor: userOf(res).actor,
            documents: valid.map(({ doc }) => ({ title: doc.title, content: doc.content, category: doc.category ?? '', tags: doc.tags ?? [], status: doc.status ?? '', slug: doc.slug ?? '' })),
          },
          { ...rpcFor(res), timeoutMs: BULK_DEADLINE_MS },
        );
        for (const r of out.results) {
          const index = valid[r.index].index;
          results[index] = { ...fromService({ ...r, index }) };
        }
      }
      const created = results.filter((r) => r.status === 201).length;
      if (created > 0) recordActivity(deps, req, res, { type: 'document.created', target_type: 'documents', target_id: 'bulk', summary: `imported ${created} of ${results.length} documents in bulk` });
      sendEnvelope(res, { created, failed: results.length - created, results }, { message: `${created} of ${results.length} documents created` });
    },
  );
  return router;
}
