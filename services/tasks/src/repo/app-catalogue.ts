import type { EventBus, Logger, Subscription } from '@tollgate/kit';
import type { AppRecord } from '../domain/types';
import type { AppChanges, AppRepo, NewApp } from './app-repo';

/** `tasks.apps.changed`: an app was created, changed or deleted; every replica drops its copy. */
export const APPS_CHANGED_SUBJECT = 'tasks.apps.changed';

/**
 * The apps as executions read them: from memory, loaded on first use and kept for `ttlMs`, dropped
 * at once when an app changes here or on another replica (announced on the bus). The other reads and
 * every write go to the repository.
 */
export class AppCatalogue {
  private readonly byId = new Map<string, { app: AppRecord | null; at: number }>();
  private watcher: Subscription | undefined;

  constructor(
    private readonly repo: AppRepo,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly ttlMs: number,
  ) {}

  async find(id: string): Promise<AppRecord | null> {
    const hit = this.byId.get(id);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.app;
    const app = await this.repo.find(id);
    if (this.byId.size > 10_000) this.byId.clear();
    this.byId.set(id, { app, at: Date.now() });
    return app;
  }

  findByReporterTokenHash(hash: string): Promise<AppRecord | null> {
    return this.repo.findByReporterTokenHash(hash);
  }

  list(...args: Parameters<AppRepo['list']>): ReturnType<AppRepo['list']> {
    return this.repo.list(...args);
  }

  async create(app: NewApp): Promise<AppRecord | null> {
    return this.changed(app.id, await this.repo.create(app));
  }

  async createMissing(apps: NewApp[]): Promise<number> {
    const n = await this.repo.createMissing(apps);
    for (const a of apps) await this.changed(a.id, null);
    return n;
  }

  async fillEmptySettings(id: string, settings: Record<string, unknown>): Promise<number> {
    return this.changed(id, await this.repo.fillEmptySettings(id, settings));
  }

  async update(id: string, changes: AppChanges): Promise<AppRecord> {
    return this.changed(id, await this.repo.update(id, changes));
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete(id);
    await this.changed(id, null);
  }

  async watch(): Promise<void> {
    this.watcher = await this.bus.watch<{ app_id?: string }>(APPS_CHANGED_SUBJECT, (m) => {
      if (m.data?.app_id) this.byId.delete(m.data.app_id);
      else this.byId.clear();
    });
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
  }

  private async changed<T>(id: string, out: T): Promise<T> {
    this.byId.delete(id);
    await this.bus.publish(APPS_CHANGED_SUBJECT, { app_id: id }).catch((err: unknown) => this.log.warn({ err, appId: id }, 'app change not announced; other replicas see it within the catalogue period'));
    return out;
  }
}
