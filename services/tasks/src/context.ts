import type { EventBus, Logger } from '@tollgate/kit';
import type { RunningTasks } from './execution/running';
import type { AppRepo } from './repo/app-repo';
import type { ConversationRepo } from './repo/conversation-repo';
import type { Outbox } from './repo/outbox';
import type { TaskRepo } from './repo/task-repo';

/** What the use cases are built from. */
export interface TasksContext {
  apps: AppRepo;
  tasks: TaskRepo;
  conversations: ConversationRepo;
  outbox: Outbox;
  running: RunningTasks;
  bus: EventBus;
  log: Logger;
  settings: { workerId: string; leaseMs: number; providerTimeoutMs: number; workers: number };
}
