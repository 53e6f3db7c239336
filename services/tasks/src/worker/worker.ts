import { TASKS_SUBMITTED_SUBJECT, TaskStatus, type EventBus, type Subscription } from '@tollgate/kit';
import type { TaskRecord } from '../domain/types';
import { runTask, type RunnerDeps } from '../execution/runner';
import type { AppCatalogue } from '../repo/app-catalogue';

export interface WorkerSettings {
  slots: number;
  /** A wake-up's claim waits this long (0: the next turn), so that what arrives meanwhile is claimed in the same statement. */
  claimLingerMs: number;
  pollMs: number;
  maxAttempts: number;
}

/**
 * Runs async tasks from the tasks table, the durable queue: claims with a lease (SKIP LOCKED, so
 * replicas share the work), heartbeats through the runner, re-claims tasks whose lease expired.
 * `tasks.submitted` on the bus and a slot becoming free only wake it; a poll covers lost wake-ups.
 */
export class Worker {
  private active = false;
  private pumping = false;
  private again = false;
  private readonly inflight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private wakeups: Subscription | undefined;

  constructor(
    private readonly deps: RunnerDeps & { apps: AppCatalogue },
    private readonly settings: WorkerSettings,
  ) {}

  async start(bus: EventBus): Promise<void> {
    this.active = true;
    this.wakeups = await bus.watch(TASKS_SUBMITTED_SUBJECT, () => this.wake());
    this.timer = setInterval(() => {
      this.wake();
      void this.deps.tasks
        .failAbandonedSync('the replica running this synchronous task stopped before it finished')
        .then((failed) => {
          for (const task of failed) void this.deps.admissions.settleTask(task);
        })
        .catch((err: unknown) => this.deps.log.warn({ err }, 'sweeping abandoned sync tasks failed'));
    }, this.settings.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops claiming; running tasks stop and their leases are released for another replica to take over at once. */
  async stop(): Promise<void> {
    this.active = false;
    clearInterval(this.timer);
    await this.wakeups?.stop();
    this.deps.running.abortAll('shutdown');
    await Promise.allSettled([...this.inflight]);
    await this.deps.tasks.releaseLeases(this.deps.settings.workerId).catch((err: unknown) => this.deps.log.warn({ err }, 'releasing leases failed'));
  }

  wake(): void {
    if (!this.active) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    const pump = () => void this.pump().finally(() => (this.pumping = false));
    // Slots freed and submissions arriving meanwhile are claimed together.
    if (this.settings.claimLingerMs > 0) setTimeout(pump, this.settings.claimLingerMs).unref();
    else setImmediate(pump);
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.again = false;
        while (this.active && this.inflight.size < this.settings.slots) {
          // Every free slot in one statement: slots freed while a claim runs are filled by the next.
          const free = this.settings.slots - this.inflight.size;
          const tasks = await this.deps.tasks.claim(this.deps.settings.workerId, this.deps.settings.leaseMs, free);
          for (const task of tasks) this.spawn(task);
          if (tasks.length < free) break;
        }
      } while (this.again && this.active);
    } catch (err) {
      this.deps.log.warn({ err }, 'claiming tasks failed; retrying at the next poll');
    }
  }

  private spawn(task: TaskRecord): void {
    const job = this.execute(task)
      .catch((err: unknown) => this.deps.log.error({ err, taskNumber: task.taskNumber }, 'worker job failed'))
      .finally(() => {
        this.inflight.delete(job);
        this.wake();
      });
    this.inflight.add(job);
  }

  private async execute(task: TaskRecord): Promise<void> {
    const { tasks, apps, admissions, settings } = this.deps;
    const fail = async (comments: string) => {
      const failed = await tasks.transition(task.taskNumber, [TaskStatus.Running], TaskStatus.Failed, { comments }, settings.workerId);
      if (failed) void admissions.settleTask(failed);
    };
    if (task.attempts > this.settings.maxAttempts) {
      return fail(`given up after ${this.settings.maxAttempts} attempts: the workers running it stopped before it finished`);
    }
    const app = await apps.find(task.appId);
    if (!app) return fail(`app ${task.appId} no longer exists`);
    await runTask(this.deps, task, app);
  }
}
