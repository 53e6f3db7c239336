import { join } from 'node:path';
import { startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { loadTasksConfig, type TasksConfig } from './config';
import { createTasksDb } from './db';

export const tasksService: ServiceModule<TasksConfig> = {
  name: 'tasks',
  loadConfig: loadTasksConfig,
  start: (config, { log }) =>
    startServiceRuntime({
      name: 'tasks',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createTasksDb,
      build: () => ({ services: [] }),
    }),
};
