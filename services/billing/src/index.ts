export { billingService } from './service';
export type { BillingConfig } from './config';
