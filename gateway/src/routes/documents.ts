import { Router } from 'express';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { AppError } from '@tollgate/kit';
import { hasPermission, requireUser, userOf } from '../auth/user-token';
import { sendEnvelope } from '../http/envelope';
import { recordActivity } from '../activity/record-activity';
import {
  DOC_LIST_DEFAULT_LIMIT,
  createDocumentBody,
  deleteQuery,
  documentJson,
  documentListItemJson,
  documentListItemSchema,
  documentSchema,
  envelope,
  idParams,
  listDocumentsQuery,
  revisionJson,
  revisionParams,
  revisionSchema,
  updateDocumentBody,
} from './documents-schemas';
import { rpcFor } from '../http/request-id';

const errors = {
  401: { description: 'Missing or unknown token' },
  403: { description: 'Missing permission, or plain HTTP' },
  422: { description: 'Invalid input; data.errors lists the fields' },
};
const notFound = { 404: { description: 'No such document (or a draft of someone else, or in the trash)' } };

/**
 * `/api/v1/documents`: CRUD, trash and revisions, in the envelope. Reading needs docs_read,
 * writing docs_write (authentication by requireUser in the API surface). Decisions in docs/docs-api.md.
 */
export function documentsRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { docs } = deps.upstreams;
  const read = [requireUser(deps, { permission: 'docs_read' })];
  const write = [requireUser(deps, { permission: 'docs_write' })];
  const tags = ['Documents'];
  const security = 'userToken' as const;

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/documents', summary: 'List documents (newest change first); ?deleted=true lists the trash', tags, security, query: listDocumentsQuery, before: read, responses: { 200: { description: 'One page', schema: envelope(z.object({ documents: z.array(documentListItemSchema), page: z.number().int(), limit: z.number().int(), total: z.number().int().describe('Matching documents: exact up to 100, PostgreSQL\'s estimate above (never below 101)'), total_pages: z.number().int() })) }, ...errors } },
    async ({ query }, _req, res) => {
      if (query.deleted && !hasPermission(userOf(res).account, 'docs_write')) throw AppError.forbidden('listing the trash needs the docs_write permission');
      const limit = query.limit ?? DOC_LIST_DEFAULT_LIMIT;
      const out = await docs.listDocuments({
        actor: userOf(res).actor,
        page: { page: query.page ?? 1, pageSize: limit },
        category: query.category ?? '',
        tag: query.tag ?? '',
        status: query.status ?? '',
        authorAccountId: query.author ?? 0,
        deleted: query.deleted ?? false,
        summary: true,
      }, rpcFor(res));
      const total = out.page?.total ?? 0;
      sendEnvelope(res, { documents: out.documents.map(documentListItemJson), page: out.page?.page ?? 1, limit, total, total_pages: Math.ceil(total / limit) });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/documents', summary: 'Create a document; data.id is its id', tags, security, body: createDocumentBody, before: write, responses: { 201: { description: 'Created', schema: envelope(documentSchema) }, 409: { description: 'Slug already used' }, ...errors } },
    async ({ body }, req, res) => {
      const doc = await docs.createDocument({ actor: userOf(res).actor, title: body.title, content: body.content, category: body.category ?? '', tags: body.tags ?? [], status: body.status ?? '', slug: body.slug ?? '' }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'document.created', target_type: 'document', target_id: doc.id, summary: `created document ${doc.id} "${doc.title}"` });
      sendEnvelope(res, documentJson(doc), { status: 201, message: 'document created' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/documents/:id', summary: 'Get a document', tags, security, params: idParams, before: read, responses: { 200: { description: 'The document', schema: envelope(documentSchema) }, ...notFound, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, documentJson(await docs.getDocument({ actor: userOf(res).actor, id: params.id }, rpcFor(res))));
    },
  );

  deps.book.add(
    router,
    { method: 'put', path: '/api/v1/documents/:id', summary: 'Update a document (the fields given); keeps a revision', tags, security, params: idParams, body: updateDocumentBody, before: write, responses: { 200: { description: 'Updated', schema: envelope(documentSchema) }, 409: { description: 'Version mismatch, or slug already used' }, ...notFound, ...errors } },
    async ({ params, body }, req, res) => {
      const doc = await docs.updateDocument({
        actor: userOf(res).actor,
        id: params.id,
        title: body.title,
        content: body.content,
        category: body.category,
        tags: body.tags ?? [],
        tagsSet: body.tags !== undefined,
        status: body.status,
        slug: body.slug,
        expectedVersion: body.version,
      }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'document.updated', target_type: 'document', target_id: doc.id, summary: `updated document ${doc.id} "${doc.title}" to version ${doc.version}` });
      sendEnvelope(res, documentJson(doc), { message: 'document updated' });
    },
  );

  deps.book.add(
    router,
    { method: 'delete', path: '/api/v1/documents/:id', summary: 'Move a document to the trash, or ?permanent=true to delete it for good', tags, security, params: idParams, query: deleteQuery, before: write, responses: { 200: { description: 'Deleted; data is the document as it was', schema: envelope(documentSchema.extend({ permanent: z.boolean() })) }, ...notFound, ...errors } },
    async ({ params, query }, req, res) => {
      const permanent = query.permanent ?? false;
      const doc = await docs.deleteDocument({ actor: userOf(res).actor, id: params.id, permanent }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'document.deleted', target_type: 'document', target_id: doc.id, summary: permanent ? `deleted document ${doc.id} "${doc.title}" permanently` : `moved document ${doc.id} "${doc.title}" to the trash` });
      sendEnvelope(res, { ...documentJson(doc), permanent }, { message: permanent ? 'document deleted permanently' : `document moved to the trash; POST /api/v1/documents/${doc.id}/restore brings it back` });
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/documents/:id/restore', summary: 'Take a document out of the trash', tags, security, params: idParams, before: write, responses: { 200: { description: 'Restored', schema: envelope(documentSchema) }, 409: { description: 'Not in the trash' }, ...notFound, ...errors } },
    async ({ params }, req, res) => {
      const doc = await docs.restoreDocument({ actor: userOf(res).actor, id: params.id }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'document.restored', target_type: 'document', target_id: doc.id, summary: `restored document ${doc.id} "${doc.title}" from the trash` });
      sendEnvelope(res, documentJson(doc), { message: 'document restored' });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/documents/:id/revisions', summary: 'Revisions of a document, newest first', tags, security, params: idParams, before: read, responses: { 200: { description: 'Revisions', schema: envelope(z.object({ revisions: z.array(revisionSchema) })) }, ...notFound, ...errors } },
    async ({ params }, _req, res) => {
      const out = await docs.listRevisions({ actor: userOf(res).actor, id: params.id }, rpcFor(res));
      sendEnvelope(res, { revisions: out.revisions.map(revisionJson) });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/api/v1/documents/:id/revisions/:version', summary: 'One revision of a document', tags, security, params: revisionParams, before: read, responses: { 200: { description: 'The revision', schema: envelope(revisionSchema) }, ...notFound, ...errors } },
    async ({ params }, _req, res) => {
      sendEnvelope(res, revisionJson(await docs.getRevision({ actor: userOf(res).actor, documentId: params.id, version: params.version }, rpcFor(res))));
    },
  );

  deps.book.add(
    router,
    { method: 'post', path: '/api/v1/documents/:id/revisions/:version/restore', summary: "Restore a revision's title, content, category and tags as a new version", tags, security, params: revisionParams, before: write, responses: { 200: { description: 'The document at its new version', schema: envelope(documentSchema) }, ...notFound, ...errors } },
    async ({ params }, req, res) => {
      const doc = await docs.restoreRevision({ actor: userOf(res).actor, documentId: params.id, version: params.version }, rpcFor(res));
      recordActivity(deps, req, res, { type: 'document.restored', target_type: 'document', target_id: doc.id, summary: `restored revision ${params.version} of document ${doc.id} as version ${doc.version}` });
      sendEnvelope(res, documentJson(doc), { message: `revision ${params.version} restored as version ${doc.version}` });
    },
  );
  return router;
}

