export * from './registry';
export * from './grpc-metrics';
export * from './metrics-server';
