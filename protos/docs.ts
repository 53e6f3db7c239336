export * from './gen/tollgate/docs/v1/docs';
