import { TASK_STATUS_SUBJECTS, type EventBus, type Subscription, type TaskStatusEvent } from '@tollgate/kit';
import { isFinal } from '../domain/status';

export type StopReason = 'cancelled' | 'client-gone' | 'lease-lost' | 'shutdown';

/** Why a run was aborted; the runner decides from it what (if anything) to write. */
export class StopRequested extends Error {
  constructor(readonly why: StopReason) {
    super(`task stopped: ${why}`);
    this.name = 'StopRequested';
  }
}

/**
 * The runs of this replica, by task number, so that a status change made anywhere (cancel through
 * any replica, an admin's final state) stops the work here: the bus tells every replica.
 */
export class RunningTasks {
  private readonly runs = new Map<string, AbortController>();
  private watcher: Subscription | undefined;

  start(taskNumber: string): { signal: AbortSignal; abort(why: StopReason): void; finish(): void } {
    const controller = new AbortController();
    this.runs.set(taskNumber, controller);
    return {
      signal: controller.signal,
      abort: (why) => controller.abort(new StopRequested(why)),
      finish: () => {
        if (this.runs.get(taskNumber) === controller) this.runs.delete(taskNumber);
      },
    };
  }

  abort(taskNumber: string, why: StopReason): void {
    this.runs.get(taskNumber)?.abort(new StopRequested(why));
  }

  abortAll(why: StopReason): void {
    for (const controller of this.runs.values()) controller.abort(new StopRequested(why));
  }

  get size(): number {
    return this.runs.size;
  }

  /** A final state published for a task running here (set by someone else) stops it. */
  async watch(bus: EventBus): Promise<void> {
    this.watcher = await bus.watch<TaskStatusEvent>(TASK_STATUS_SUBJECTS, (m) => {
      if (m.data && isFinal(m.data.status)) this.abort(m.data.task_number, 'cancelled');
    });
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
  }
}
