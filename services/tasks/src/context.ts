import type { EventBus, Logger, RecentValues } from '@tollgate/kit';
import type { RunningTasks } from './execution/running';
import type { RunTimes } from './execution/run-times';
import type { AdmissionGate } from './execution/admission-gate';
import type { Admissions } from './admission/admissions';
import type { AppCatalogue } from './repo/app-catalogue';
import type { ConversationRepo } from './repo/conversation-repo';
import type { Outbox } from './repo/outbox';
import type { TaskRepo } from './repo/task-repo';

/** What the use cases are built from. */
export interface TasksContext {
  apps: AppCatalogue;
  admissions: Admissions;
  tasks: TaskRepo;
  conversations: ConversationRepo;
  outbox: Outbox;
  running: RunningTasks;
  /** Each app's recent mean run time, for the async wait estimate. */
  runTimes: RunTimes;
  /** How many async tasks wait for a worker, for the same estimate: the last count, recounted in the background a few times a second. */
  waiting: RecentValues<'queue', number>;
  /** Bounds the executions being checked and admitted at once. */
  admitting: AdmissionGate;
  bus: EventBus;
  log: Logger;
  settings: { workerId: string; leaseMs: number; providerTimeoutMs: number; workers: number; allowPrivateWebhooks: boolean };
}
