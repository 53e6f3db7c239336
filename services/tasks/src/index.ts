export { tasksService } from './service';
export type { TasksConfig } from './config';
