import type { DocumentEvent, Logger } from '@tollgate/kit';
import type { SearchEngine } from '../engine/types';
import type { VersionStore } from './index-versions';
import type { Mutex } from './mutex';
import { fromEventDocument, isSearchable } from './to-search-doc';

export interface IndexerDeps {
  engine: SearchEngine;
  state: VersionStore;
  lock: Mutex;
  log: Logger;
}

export type ApplyOutcome = 'indexed' | 'removed' | 'stale' | 'malformed';

/**
 * Applies one document event to the index unless a same or newer version was applied already
 * (redeliveries and out-of-order events change nothing). A document that is not published or
 * is in the trash, or was deleted for good, leaves the index.
 */
export function applyDocumentEvent(deps: IndexerDeps, event: DocumentEvent): Promise<ApplyOutcome> {
  if (!Number.isInteger(event?.id) || !Number.isInteger(event?.version)) {
    deps.log.error({ event }, 'malformed document event dropped');
    return Promise.resolve('malformed');
  }
  return deps.lock.run(async () => {
    const known = await deps.state.version(event.id);
    if (known !== undefined && event.version <= known) return 'stale';
    const doc = event.document;
    const searchable = doc !== undefined && isSearchable(doc);
    if (searchable) await deps.engine.upsert([fromEventDocument(doc)]);
    else await deps.engine.remove([event.id]);
    await deps.state.record(event.id, event.version);
    return searchable ? 'indexed' : 'removed';
  });
}
