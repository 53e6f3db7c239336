import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EngineQuery, EngineResult, SearchDoc, SearchEngine, SearchSettings, Suggestion } from './types';
import type { WorkerReply, WorkerRequest } from './worker-protocol';

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * The embedded engine in a worker thread: indexing and searching run beside the event loop that
 * serves every other request of the process (in the embedded default, the gateway and all
 * services share one), and on the second core. Same behaviour as EmbeddedEngine (the contract
 * suite runs against both); calls are messages, answered in order.
 */
export class WorkerEngine implements SearchEngine {
  readonly name = 'embedded' as const;
  readonly persistent = false;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 1;
  private exited?: Error;

  constructor() {
    const entry = join(__dirname, 'engine-worker.ts');
    // The worker loads TypeScript through tsx, whether this process runs under tsx, jest or node.
    const boot = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`;
    this.worker = new Worker(boot, { eval: true });
    // Referenced only while a call waits, so an idle engine never keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(reply.error));
    });
    const fail = (err: Error) => {
      this.exited ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`search engine worker exited (code ${code})`)));
  }

  async init(): Promise<void> {
    await this.call({ op: 'count' });
  }

  async applySettings(settings: SearchSettings): Promise<void> {
    await this.call({ op: 'applySettings', settings });
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    await this.call({ op: 'upsert', docs });
  }

  async remove(ids: number[]): Promise<void> {
    await this.call({ op: 'remove', ids });
  }

  async clear(): Promise<void> {
    await this.call({ op: 'clear' });
  }

  async replaceAll(batches: AsyncIterable<SearchDoc[]>): Promise<number> {
    const done = this.call({ op: 'replaceStart' }) as Promise<number>;
    try {
      for await (const docs of batches) this.post({ op: 'replaceBatch', docs });
    } finally {
      this.post({ op: 'replaceEnd' });
    }
    return done;
  }

  async count(): Promise<number> {
    return (await this.call({ op: 'count' })) as number;
  }

  async search(query: EngineQuery): Promise<EngineResult> {
    return (await this.call({ op: 'search', query })) as EngineResult;
  }

  async suggest(q: string, limit: number): Promise<Suggestion[]> {
    return (await this.call({ op: 'suggest', q, limit })) as Suggestion[];
  }

  async close(): Promise<void> {
    this.exited ??= new Error('search engine closed');
    await this.worker.terminate();
  }

  private call(req: Request): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.pending.size === 1) this.worker.ref();
    this.worker.postMessage({ ...req, id });
    return answer;
  }

  /** A message whose reply nobody waits for (rebuild batches). */
  private post(req: Request): void {
    if (this.exited) throw this.exited;
    this.worker.postMessage({ ...req, id: 0 });
  }
}
