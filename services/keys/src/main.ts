import { runServiceMain } from '@tollgate/kit';
import { keysService } from './service';

runServiceMain(keysService).catch((err) => {
  console.error(err);
  process.exit(1);
});
