import { DOCUMENT_SUBJECTS, type DocumentEvent, type EventBus, type Subscription } from '@tollgate/kit';
import { applyDocumentEvent, type IndexerDeps } from './apply-event';

/** The durable subscription to `docs.document.*` that keeps the index current; a failed apply is redelivered. */
export function consumeDocumentEvents(bus: EventBus, durable: string, deps: IndexerDeps): Promise<Subscription> {
  return bus.subscribe<DocumentEvent>({
    durable,
    subjects: DOCUMENT_SUBJECTS,
    handler: async (m) => {
      const outcome = await applyDocumentEvent(deps, m.data);
      deps.log.debug({ subject: m.subject, id: m.data?.id, version: m.data?.version, outcome }, 'document event applied');
    },
  });
}
