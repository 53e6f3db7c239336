import { runServiceMain } from '@tollgate/kit';
import { billingService } from './service';

runServiceMain(billingService).catch((err) => {
  console.error(err);
  process.exit(1);
});
