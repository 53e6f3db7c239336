import type { GrpcClient } from '@tollgate/kit';
import type { DocsClient, Document } from '@tollgate/protos/docs';
import type { SearchDoc } from '../engine/types';
import type { IndexerDeps } from './apply-event';
import { fromDocumentMessage } from './to-search-doc';

const BATCH = 500;

export interface RebuildDeps extends IndexerDeps {
  docs: GrpcClient<DocsClient>;
  timeoutMs: number;
}

/**
 * Replaces the whole index with every published live document streamed from the docs service,
 * recording each version as applied. Holds the index lock, so events wait and then apply only
 * if newer than what the rebuild saw.
 */
export function rebuildIndex(deps: RebuildDeps): Promise<{ indexed: number; tookMs: number }> {
  return deps.lock.run(async () => {
    const started = Date.now();
    // The kit's GrpcClient type reads server-streaming methods as unary; the value is the stream.
    const stream = deps.docs.streamAllDocuments({}, { timeoutMs: deps.timeoutMs });
    async function* batches(): AsyncGenerator<SearchDoc[]> {
      let batch: Document[] = [];
      const flush = async () => {
        await deps.state.recordMany(batch.map((d) => ({ id: d.id, version: d.version })));
        const out = batch.map(fromDocumentMessage);
        batch = [];
        return out;
      };
      for await (const doc of stream) {
        batch.push(doc);
        if (batch.length >= BATCH) yield await flush();
      }
      if (batch.length > 0) yield await flush();
    }
    const indexed = await deps.engine.replaceAll(batches());
    const tookMs = Date.now() - started;
    deps.log.info({ indexed, tookMs, engine: deps.engine.name }, 'search index rebuilt');
    return { indexed, tookMs };
  });
}
