export * from './status-map';
export * from './handlers';
export * from './server';
export * from './client';
export * from './health-client';
export * from './async-resource-bind';
