import { runServiceMain } from '@tollgate/kit';
import { docsService } from './service';

runServiceMain(docsService).catch((err) => {
  console.error(err);
  process.exit(1);
});
