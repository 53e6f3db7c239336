export * from './gen/tollgate/billing/v1/billing';
