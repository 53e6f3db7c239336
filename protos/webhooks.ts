export * from './gen/tollgate/tasks/v1/webhooks';
