import { loadConfig, serviceConfigSchema } from '@tollgate/kit';

export const tasksConfigSchema = serviceConfigSchema('tasks', {}, () => ({}));

export type TasksConfig = ReturnType<typeof loadTasksConfig>;

export function loadTasksConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(tasksConfigSchema, env);
}
