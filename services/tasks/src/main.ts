import { runServiceMain } from '@tollgate/kit';
import { tasksService } from './service';

runServiceMain(tasksService).catch((err) => {
  console.error(err);
  process.exit(1);
});
