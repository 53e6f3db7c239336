import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { TasksService } from '@tollgate/protos/tasks';
import { loadTasksConfig, type TasksConfig } from './config';
import type { TasksContext } from './context';
import { createTasksDb } from './db';
import { RunningTasks } from './execution/running';
import { AppRepo } from './repo/app-repo';
import { ConversationRepo } from './repo/conversation-repo';
import { Outbox } from './repo/outbox';
import { TaskRepo } from './repo/task-repo';
import { tasksGrpc } from './server';
import { seedDemoApps } from './usecases/apps/seed-demo-apps';
import { Worker } from './worker/worker';

export const tasksService: ServiceModule<TasksConfig> = {
  name: 'tasks',
  loadConfig: loadTasksConfig,
  start: (config, { bus, log }) =>
    startServiceRuntime({
      name: 'tasks',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createTasksDb,
      build: async (db) => {
        const ctx: TasksContext = {
          apps: new AppRepo(db),
          tasks: new TaskRepo(db),
          conversations: new ConversationRepo(db),
          outbox: new Outbox(db, bus, log),
          running: new RunningTasks(),
          bus,
          log,
          settings: { workerId: config.workerId, leaseMs: config.leaseMs, providerTimeoutMs: config.providerTimeoutMs, workers: config.workers },
        };
        if (config.seedDemoApps) await seedDemoApps(ctx);
        await ctx.running.watch(bus);
        ctx.outbox.start(config.pollMs);
        const worker = config.workers > 0 ? new Worker(ctx, { slots: config.workers, pollMs: config.pollMs, maxAttempts: config.maxAttempts }) : undefined;
        await worker?.start(bus);
        log.info({ workerId: config.workerId, workers: config.workers, leaseMs: config.leaseMs }, 'tasks worker started');
        return {
          services: [{ definition: TasksService, implementation: tasksGrpc(ctx, log) }],
          onStop: async () => {
            await worker?.stop();
            ctx.running.abortAll('shutdown');
            await ctx.running.stop();
            await ctx.outbox.stop();
          },
        };
      },
    }),
};
