export * from './gen/tollgate/search/v1/search';
