export * from './gen/tollgate/keys/v1/keys';
