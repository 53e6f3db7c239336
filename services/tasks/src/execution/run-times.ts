import { TASK_STATUS_SUBJECTS, TaskStatus, type EventBus, type Logger, type Subscription, type TaskStatusEvent } from '@tollgate/kit';
import type { RunStat, RunStatsRepo } from '../repo/run-stats-repo';

/** Weight of the newest run in an app's mean: after a change of pace, three runs move it most of the way. */
export const EWMA_WEIGHT = 0.3;

/**
 * Each app's recent run time as an exponentially weighted mean of its completed runs: updated in
 * memory from the `tasks.status.*` events of every replica (O(1) per finished task), read in O(1)
 * by the async estimate, loaded once per app from `app_run_stats` and written back in batches.
 */
export class RunTimes {
  private readonly known = new Map<string, RunStat | null>();
  private readonly loading = new Map<string, Promise<RunStat | null>>();
  private readonly dirty = new Set<string>();
  private watcher: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: RunStatsRepo,
    private readonly log: Logger,
  ) {}

  /** The app's mean run time in ms; null before its first completed run. */
  async meanMs(appId: string): Promise<number | null> {
    if (this.known.has(appId)) return this.known.get(appId)?.ewmaMs ?? null;
    return (await this.load(appId))?.ewmaMs ?? null;
  }

  /** One completed run of `appId` that took `ms`. */
  async observe(appId: string, ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) return;
    const current = this.known.has(appId) ? this.known.get(appId)! : await this.load(appId);
    const next: RunStat = current ? { ewmaMs: current.ewmaMs + EWMA_WEIGHT * (ms - current.ewmaMs), samples: current.samples + 1 } : { ewmaMs: ms, samples: 1 };
    this.known.set(appId, next);
    this.dirty.add(appId);
  }

  /** Follows the final states on the bus and writes the figures back every `flushMs`. */
  async start(bus: EventBus, flushMs: number): Promise<void> {
    this.watcher = await bus.watch<TaskStatusEvent>(TASK_STATUS_SUBJECTS, (m) => {
      const e = m.data;
      if (e?.status === TaskStatus.Completed && typeof e.duration_ms === 'number') {
        this.observe(e.app_id, e.duration_ms).catch((err: unknown) => this.log.warn({ err, appId: e.app_id }, 'run time not recorded'));
      }
    });
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** Writes the changed figures (one statement). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.dirty.size === 0) return;
      const batch = new Map<string, RunStat>();
      for (const id of this.dirty) batch.set(id, this.known.get(id)!);
      this.dirty.clear();
      try {
        await this.repo.saveMany(batch);
      } catch (err) {
        for (const id of batch.keys()) this.dirty.add(id);
        this.log.warn({ err }, 'run times not saved; retrying at the next flush');
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.watcher?.stop();
    await this.flush();
  }

  private load(appId: string): Promise<RunStat | null> {
    let p = this.loading.get(appId);
    if (!p) {
      p = this.repo.get(appId).then(
        (stat) => {
          if (!this.known.has(appId)) this.known.set(appId, stat);
          this.loading.delete(appId);
          return this.known.get(appId)!;
        },
        (err: unknown) => {
          this.loading.delete(appId);
          throw err;
        },
      );
      this.loading.set(appId, p);
    }
    return p;
  }
}
