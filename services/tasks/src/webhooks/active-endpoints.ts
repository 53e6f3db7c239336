import type { EventBus, Subscription } from '@tollgate/kit';
import type { EndpointRepo } from './endpoint-repo';
import { WEBHOOK_CHANGED_SUBJECTS, type EndpointRecord } from './types';

interface Snapshot {
  all: EndpointRecord[];
  byAccount: Map<number, EndpointRecord[]>;
  loadedAt: number;
}

/**
 * The active subscriptions in memory, for the fan-out of every task and document event (which
 * otherwise reads the table once per event). Reloaded after any change: at once on the replica
 * that made it (forget()), on the others when its `webhooks.changed.<id>` event reaches them, and
 * at the latest after `maxAgeMs` (an announcement that was lost).
 */
export class ActiveEndpoints {
  private snapshot: Snapshot | null = null;
  private loading: Promise<Snapshot> | null = null;
  private generation = 0;
  private watcher: Subscription | undefined;

  constructor(
    private readonly repo: EndpointRepo,
    private readonly maxAgeMs = 30_000,
  ) {}

  async watch(bus: EventBus): Promise<void> {
    this.watcher = await bus.watch(WEBHOOK_CHANGED_SUBJECTS, () => this.forget());
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
  }

  /** Active subscriptions that want `type` (by name or `"*"`), of one account or of all. */
  async activeFor(type: string, accountId?: number): Promise<EndpointRecord[]> {
    const s = await this.current();
    const candidates = accountId === undefined ? s.all : (s.byAccount.get(accountId) ?? []);
    return candidates.filter((e) => e.events.includes(type) || e.events.includes('*'));
  }

  /** A subscription changed here (or its event arrived): the next fan-out reads them again. */
  forget(): void {
    this.generation++;
    this.snapshot = null;
  }

  private current(): Promise<Snapshot> {
    const s = this.snapshot;
    if (s && Date.now() - s.loadedAt < this.maxAgeMs) return Promise.resolve(s);
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading = this.repo
      .allActive()
      .then((all) => {
        const byAccount = new Map<number, EndpointRecord[]>();
        for (const e of all) byAccount.set(e.accountId, [...(byAccount.get(e.accountId) ?? []), e]);
        const fresh = { all, byAccount, loadedAt: Date.now() };
        // A change announced while this read was under way may not be in it: use it once, keep nothing.
        if (generation === this.generation) this.snapshot = fresh;
        return fresh;
      })
      .finally(() => {
        if (this.loading === loading) this.loading = null;
      });
    this.loading = loading;
    return loading;
  }
}
