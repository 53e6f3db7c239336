export * from './recent-values';
export * from './list-estimates';
