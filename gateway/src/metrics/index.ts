export * from './counters';
export * from './gateway-metrics';
export * from './http-metrics';
export * from './route';
export * from './executions';
