import { parentPort } from 'node:worker_threads';
import { EmbeddedEngine } from './embedded-engine';
import type { SearchDoc } from './types';
import type { WorkerReply, WorkerRequest } from './worker-protocol';

/**
 * The worker thread side of WorkerEngine: one EmbeddedEngine, driven by messages. Requests are
 * answered in the order they arrive, except that a rebuild's batches stream in while searches
 * keep being answered from the current index until the rebuilt one is swapped in.
 */
const engine = new EmbeddedEngine();
const port = parentPort!;
let rebuild: { push(batch: SearchDoc[] | null): void } | undefined;

function batchesFromMessages(): { push(batch: SearchDoc[] | null): void; iterable: AsyncIterable<SearchDoc[]> } {
  const queue: Array<SearchDoc[] | null> = [];
  let wake: (() => void) | undefined;
  return {
    push(batch) {
      queue.push(batch);
      wake?.();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          const next = queue.shift()!;
          if (next === null) return;
          yield next;
        }
      },
    },
  };
}

async function handle(req: WorkerRequest): Promise<unknown> {
  switch (req.op) {
    case 'upsert':
      return engine.upsert(req.docs);
    case 'remove':
      return engine.remove(req.ids);
    case 'clear':
      return engine.clear();
    case 'count':
      return engine.count();
    case 'search':
      return engine.search(req.query);
    case 'suggest':
      return engine.suggest(req.q, req.limit);
    case 'applySettings':
      return engine.applySettings(req.settings);
    case 'replaceStart': {
      const feed = batchesFromMessages();
      rebuild = feed;
      return engine.replaceAll(feed.iterable).finally(() => (rebuild = undefined));
    }
    case 'replaceBatch':
      rebuild?.push(req.docs);
      return undefined;
    case 'replaceEnd':
      rebuild?.push(null);
      return undefined;
  }
}

port.on('message', (req: WorkerRequest) => {
  handle(req).then(
    (value) => port.postMessage({ id: req.id, ok: true, value } satisfies WorkerReply),
    (err: unknown) => port.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
