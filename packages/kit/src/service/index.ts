export * from './base-config';
export * from './lifecycle';
export * from './main-runner';
export * from './module';
export * from './runtime';
