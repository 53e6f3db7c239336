import { Meilisearch, type Index, type EnqueuedTaskPromise } from 'meilisearch';
import { DEFAULT_SETTINGS, type EngineQuery, type EngineResult, type SearchDoc, type SearchEngine, type SearchSettings, type Suggestion } from '../engine/types';
import { MEILI_SETTINGS, PRE, POST, meiliRelevanceSettings, completedTerms, fromMeiliHit, meiliSearchParams, toMeiliDocument, type MeiliDocument } from './meili-mapping';

export interface MeiliOptions {
  url: string;
  apiKey?: string;
  index: string;
  /** How long to wait for Meilisearch to apply a write. */
  taskTimeoutMs?: number;
}

const BATCH = 1_000;

/** The distributed mode's engine: one Meilisearch index; writes are awaited, so a change is searchable when the call returns. */
export class MeiliEngine implements SearchEngine {
  readonly name = 'meilisearch' as const;
  readonly persistent = true;
  private readonly client: Meilisearch;
  private readonly index: Index<MeiliDocument>;
  private settings: SearchSettings = DEFAULT_SETTINGS;

  constructor(private readonly options: MeiliOptions) {
    this.client = new Meilisearch({ host: options.url, apiKey: options.apiKey });
    this.index = this.client.index<MeiliDocument>(options.index);
  }

  async init(): Promise<void> {
    const exists = await this.index.getRawInfo().then(
      () => true,
      () => false,
    );
    if (!exists) await this.wait(this.client.createIndex(this.options.index, { primaryKey: 'id' }));
    await this.wait(this.index.updateSettings(MEILI_SETTINGS));
  }

  async applySettings(settings: SearchSettings): Promise<void> {
    await this.wait(this.index.updateSettings(meiliRelevanceSettings(settings)));
    this.settings = settings;
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    for (let i = 0; i < docs.length; i += BATCH) {
      await this.wait(this.index.addDocuments(docs.slice(i, i + BATCH).map(toMeiliDocument), { primaryKey: 'id' }));
    }
  }

  async remove(ids: number[]): Promise<void> {
    if (ids.length > 0) await this.wait(this.index.deleteDocuments(ids));
  }

  async clear(): Promise<void> {
    await this.wait(this.index.deleteAllDocuments());
  }

  async replaceAll(batches: AsyncIterable<SearchDoc[]>): Promise<number> {
    const uid = `${this.options.index}_rebuild`;
    await this.client.deleteIndex(uid).waitTask({ timeout: this.options.taskTimeoutMs ?? 60_000 });
    await this.wait(this.client.createIndex(uid, { primaryKey: 'id' }));
    const staging = this.client.index<MeiliDocument>(uid);
    await this.wait(staging.updateSettings({ ...MEILI_SETTINGS, ...meiliRelevanceSettings(this.settings) }));
    let total = 0;
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      await this.wait(staging.addDocuments(batch.map(toMeiliDocument), { primaryKey: 'id' }));
      total += batch.length;
    }
    await this.wait(this.client.swapIndexes([{ indexes: [this.options.index, uid], rename: false }]));
    await this.wait(this.client.deleteIndex(uid));
    return total;
  }

  async count(): Promise<number> {
    return (await this.index.getStats()).numberOfDocuments;
  }

  async search(query: EngineQuery): Promise<EngineResult> {
    const res = await this.index.search(query.q.trim(), meiliSearchParams(query));
    return { total: res.totalHits, hits: res.hits.map(fromMeiliHit) };
  }

  async suggest(q: string, limit: number): Promise<Suggestion[]> {
    const text = q.trim();
    if (!text) return [];
    const marks = { highlightPreTag: PRE, highlightPostTag: POST };
    const [titles, terms] = await Promise.all([
      this.index.search(text, { attributesToSearchOn: ['title'], limit: Math.ceil(limit / 2), attributesToRetrieve: ['id', 'title'] }),
      this.index.search(text, { attributesToSearchOn: ['title', 'text', 'tags'], limit: 20, attributesToRetrieve: ['id'], attributesToHighlight: ['title', 'text'], attributesToCrop: ['text'], cropLength: 8, ...marks }),
    ]);
    const titleSuggestions: Suggestion[] = titles.hits.map((h) => ({ text: h.title, kind: 'title', documentId: Number(h.id) }));
    const seen = new Set(titleSuggestions.map((s) => s.text.toLowerCase()));
    const formatted = terms.hits.flatMap((h) => [String(h._formatted?.title ?? ''), String(h._formatted?.text ?? '')]);
    const completions = completedTerms(text, formatted, limit).filter((s) => !seen.has(s.text));
    return [...titleSuggestions, ...completions].slice(0, limit);
  }

  async close(): Promise<void> {}

  /** Drops the whole index (tests). */
  async drop(): Promise<void> {
    await this.wait(this.client.deleteIndex(this.options.index));
  }

  private async wait(task: EnqueuedTaskPromise): Promise<void> {
    const done = await task.waitTask({ timeout: this.options.taskTimeoutMs ?? 60_000 });
    if (done.status !== 'succeeded') throw new Error(`Meilisearch task ${done.uid} ${done.status}: ${done.error?.message ?? 'no reason given'}`);
  }
}
