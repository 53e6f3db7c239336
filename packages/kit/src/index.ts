export * from './errors';
export * from './config';
export * from './logging';
export * from './context';
export * from './grpc';
export * from './db';
export * from './bus';
export * from './service';
