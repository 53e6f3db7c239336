import { HotPool, createMemoryBus, silentLogger, type BusMessage, type EventBus, type HotQueryable, type TaskStatusEvent } from '@tollgate/kit';
import { createTasksDb, type TasksDb } from '../../src/db';
import { Outbox } from '../../src/repo/outbox';
import { TaskRepo } from '../../src/repo/task-repo';

/** A TaskRepo on a real database and an in-memory bus, with every status event it publishes recorded. */
export interface TaskRepoHarness {
  db: TasksDb;
  hot: HotPool;
  bus: EventBus;
  outbox: Outbox;
  repo: TaskRepo;
  events: TaskStatusEvent[];
  close(): Promise<void>;
}

/** `statements`: what the repo and its outbox send to the pool goes through it (e.g. to count them). */
export async function taskRepoHarness(url: string, statements: (hot: HotQueryable) => HotQueryable = (hot) => hot): Promise<TaskRepoHarness> {
  const db = createTasksDb(url);
  const hot = new HotPool(url, { max: 4, maxWaiting: 1_000 });
  const bus = createMemoryBus();
  const events: TaskStatusEvent[] = [];
  await bus.watch('tasks.status.>', (m: BusMessage<TaskStatusEvent>) => void events.push(m.data));
  const pool = statements(hot);
  const outbox = new Outbox(db, pool, bus, silentLogger());
  return {
    db,
    hot,
    bus,
    outbox,
    repo: new TaskRepo(db, pool, outbox),
    events,
    async close() {
      await bus.close();
      await hot.end();
      await db.$disconnect();
    },
  };
}
