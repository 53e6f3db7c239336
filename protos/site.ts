export * from './gen/tollgate/site/v1/site';
