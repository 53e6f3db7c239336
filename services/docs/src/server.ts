import { clipText, implement, type Logger } from '@tollgate/kit';
import { DocsService } from '@tollgate/protos/docs';
import type { DocumentsRepo } from './repo/documents-repo';
import { actorOf, toBulkResultMessage, toDocumentMessage, toRevisionMessage } from './encode';
import { bulkCreateDocuments } from './usecases/bulk-create-documents';
import { createDocument } from './usecases/create-document';
import { getDocument } from './usecases/get-document';
import { updateDocument } from './usecases/update-document';
import { trashDocument } from './usecases/trash-document';
import { destroyDocument } from './usecases/destroy-document';
import { restoreDocument } from './usecases/restore-document';
import { listDocuments } from './usecases/list-documents';
import { listRevisions } from './usecases/list-revisions';
import { getRevision } from './usecases/get-revision';
import { restoreRevision } from './usecases/restore-revision';

const STREAM_BATCH = 500;
const SUMMARY_CHARS = 300;

/** gRPC handlers of the Docs service: decode → use case → encode. */
export function docsServer(repo: DocumentsRepo, log: Logger) {
  return implement(
    DocsService,
    {
      createDocument: async (req) => toDocumentMessage(await createDocument(repo, actorOf(req.actor), req)),
      bulkCreateDocuments: async (req) => ({ results: (await bulkCreateDocuments(repo, actorOf(req.actor), req.documents)).map(toBulkResultMessage) }),
      getDocument: async (req) => toDocumentMessage(await getDocument(repo, actorOf(req.actor), req.id)),
      updateDocument: async (req) =>
        toDocumentMessage(
          await updateDocument(repo, actorOf(req.actor), req.id, {
            title: req.title,
            content: req.content,
            category: req.category,
            tags: req.tagsSet ? req.tags : undefined,
            status: req.status,
            slug: req.slug,
            expectedVersion: req.expectedVersion,
          }),
        ),
      deleteDocument: async (req) =>
        toDocumentMessage(await (req.permanent ? destroyDocument : trashDocument)(repo, actorOf(req.actor), req.id)),
      restoreDocument: async (req) => toDocumentMessage(await restoreDocument(repo, actorOf(req.actor), req.id)),
      listDocuments: async (req) => {
        const result = await listDocuments(repo, actorOf(req.actor), {
          page: req.page?.page ?? 1,
          pageSize: req.page?.pageSize ?? 0,
          category: req.category || undefined,
          tag: req.tag || undefined,
          status: req.status || undefined,
          authorAccountId: req.authorAccountId || undefined,
          deleted: req.deleted,
        });
        const documents = result.documents.map(toDocumentMessage).map((d) => (req.summary ? { ...d, content: clipText(d.content, SUMMARY_CHARS) } : d));
        return { documents, page: { page: result.page, pageSize: result.pageSize, total: result.total } };
      },
      listRevisions: async (req) => ({ revisions: (await listRevisions(repo, actorOf(req.actor), req.id)).map(toRevisionMessage) }),
      getRevision: async (req) => toRevisionMessage(await getRevision(repo, actorOf(req.actor), req.documentId, req.version)),
      restoreRevision: async (req) => toDocumentMessage(await restoreRevision(repo, actorOf(req.actor), req.documentId, req.version)),
      streamAllDocuments: async (_req, send, ctx) => {
        for await (const batch of repo.published(STREAM_BATCH)) {
          if (ctx.signal.aborted) return;
          for (const doc of batch) await send(toDocumentMessage(doc));
        }
      },
    },
    log,
  );
}
