export * from './recent-values';
