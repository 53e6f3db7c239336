import { runServiceMain } from '@tollgate/kit';
import { searchService } from './service';

runServiceMain(searchService).catch((err) => {
  console.error(err);
  process.exit(1);
});
